// ESM entry of x12kit: the same module as index.js (CommonJS), re-exported by name.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const x12kit = require('./index.js')

export const {
  parse,
  parseToJson,
  parseAsync,
  validate,
  validateAsync,
  validateStream,
  transactions,
  StreamValidator,
  acknowledge,
  readAcknowledgement,
  render,
  renderResult,
  renderAsync,
  documentSchema,
  partnerSchema,
  describeSegment,
  payloadsFromCsv,
  split,
  rebuildPart,
  merge,
  documentTypes,
  write,
  segments,
  createSegmentStream,
  Segment,
  webhook,
  Verifier,
  Signer,
  X12kitError,
  X12kitTypeError,
  errorCodes,
} = x12kit

export default x12kit
