// Types of the public API of x12kit (index.js / index.mjs). The native layer
// underneath is typed by binding.d.ts, which `napi build` generates (and the
// test suite checks for drift). The JSON shapes are documented field by field
// by the JSON Schemas in the repository's schema/ folder.
/// <reference types="node" />

import type { Readable, Transform } from 'node:stream'

/** X12 input: bytes (Buffer, Uint8Array, ArrayBuffer) or text (encoded as UTF-8). */
export type Input = Buffer | Uint8Array | ArrayBuffer | string

/** One element: a string, the components of a composite, or `{ repeat }` for repetitions. */
export type Element = string | string[] | { repeat: Array<string | string[]> }

/** One segment of a parse result. */
export interface SegmentJson {
  id: string
  elements: Element[]
  lineBreak?: string
  [key: string]: unknown
}

/** One finding about the X12 input (not an error: the input was still read). */
export interface Diagnostic {
  severity: 'error' | 'warning'
  code: string
  message: string
  segmentIndex?: number
  segmentId?: string
  element?: number
  offset?: number
  /** For a departure from a partner's guide: the pointer of the guide's rule it breaks. */
  guidePointer?: string
  [key: string]: unknown
}

/** One ST…SE transaction set (`document` when its type is one of the 18 known ones). */
export interface Transaction {
  type?: string
  controlNumber?: string
  segments: SegmentJson[]
  trailer: SegmentJson | null
  document?: Record<string, unknown>
  [key: string]: unknown
}

/** One GS…GE functional group. */
export interface Group {
  header: Record<string, string> | null
  transactions: Transaction[]
  trailer: SegmentJson | null
  [key: string]: unknown
}

/** One ISA…IEA interchange. */
export interface Interchange {
  delimiters: { element: string; component: string; repetition: string | null; segment: string }
  lineBreak: string
  header: Record<string, string>
  groups: Group[]
  trailer: SegmentJson | null
  [key: string]: unknown
}

/** The parse result: exactly the JSON of `x12kit parse` (schema/parse-result.schema.json). */
export interface ParseResult {
  interchanges: Interchange[]
  diagnostics: Diagnostic[]
  prefix?: string
  /** Present when the input's last segment has no terminator (TERMINATOR_MISSING); `write` leaves it off too. */
  unterminated?: true
  [key: string]: unknown
}

/** The validation result: exactly the JSON of `x12kit validate --json` (schema/validation-result.schema.json). */
export interface ValidationResult {
  valid: boolean
  errorCount: number
  warningCount: number
  interchanges: Array<Record<string, unknown>>
  diagnostics: Diagnostic[]
  acknowledgements?: Array<Record<string, unknown>>
  [key: string]: unknown
}

/** What the TA1/997/999 acknowledgements in an input accept or reject. */
export type Acknowledgements = Record<string, unknown>

/** One problem of a refused input (render payload problems, for example). */
export interface Problem {
  severity: 'error' | 'warning'
  code: string
  pointer: string
  message: string
}

/** What a caller does with an error. */
export type ErrorKind = 'invalid_input' | 'rejected' | 'io' | 'internal'

/** The error JSON (schema of the core's `Error::to_json`). */
export interface ErrorJson {
  code: string
  kind: ErrorKind
  message: string
  pointer?: string
  details: Problem[]
}

/** Options of `parse`, `parseToJson`, `parseAsync`. */
export interface ParseOptions {
  /** Map the 18 known transaction set types back to their payload (`document`). Default true. */
  documents?: boolean
  /** The cap on one transaction set, in bytes (0: none; default 64 MiB): a larger set is a `SET_TOO_LARGE` error, its segments skipped (it has no `segments` and no `document`), and the sets after it follow. */
  maxSetBytes?: number
}

/** Options of `validate`, `validateAsync`, `validateStream`, `StreamValidator`. */
export interface ValidateOptions {
  /** Also check each known set's structure (segments, loops, elements, codes). Default false. */
  structure?: boolean
  /**
   * Which group and set summaries the result keeps: `all` (default), `errors` (only the sets
   * not accepted cleanly: enough for an errors-only acknowledgement) or `counts` (none: a
   * stream of millions of sets validates in flat memory; verdict and counts are unchanged).
   */
  retain?: 'all' | 'errors' | 'counts'
  /**
   * Partners' implementation guides (objects of `schema/guide.schema.json`): each set a guide
   * names (type and version) is also checked against it (`GUIDE_*` diagnostics with
   * `guidePointer`). Implies `structure`. An unusable guide throws `INVALID_GUIDE`.
   */
  guides?: object[]
}

/** Options of the `*Async` calls. */
export interface AsyncOptions {
  /** Cancels the call while it waits for a pool thread. */
  signal?: AbortSignal
}

/** Unix seconds or a Date: "now", where an output is dated (default: the system clock). */
export type Now = number | Date

/** Options of `acknowledge`. */
export interface AcknowledgeOptions {
  /** `auto` (997 before 005010, 999 from 005010; TA1 when needed), `ta1`, `997` or `999`. */
  kind?: 'auto' | 'ta1' | '997' | '999'
  /** Include set structure findings (AK3/AK4, IK3/IK4) when acknowledging raw input. Default true. */
  structure?: boolean
  /** Acknowledge only the sets not accepted without errors. */
  errorsOnly?: boolean
  /** ISA13 of the first acknowledgement interchange. Default 1. */
  interchangeControlNumber?: number
  /** GS06 of the first acknowledgement group. Default 1. */
  groupControlNumber?: number
  /** ST02 of the first 997/999. Default 1. */
  setControlNumber?: number
  /** CCYYMMDD (with `time`); default: `now`. */
  date?: string
  /** HHMM (with `date`); default: `now`. */
  time?: string
  /** What follows each segment terminator (CR/LF only). */
  lineBreak?: string
  /** The acknowledgement's date and time unless `date`/`time` are given. */
  now?: Now
  /** Partners' implementation guides the input is validated against: a 999 carries their implementation codes (IK304 I4…, IK403 I6…). */
  guides?: object[]
}

/** Options of `render`, `renderResult`, `renderAsync`. */
export interface RenderOptions {
  /** Control numbers (1–999999999; default 1). */
  controlNumbers?: { interchange?: number; group?: number; transaction?: number }
  /** CCYYMMDD (with `time`); default: `now`. */
  date?: string
  /** HHMM (with `date`); default: `now`. */
  time?: string
  /**
   * Partners' implementation guides (objects of `schema/guide.schema.json`): the one of the
   * document type and the partner's version (before the profile's own `guides`) is applied, and
   * a payload that breaks it throws `INVALID_PAYLOAD` with every `GUIDE_*` problem at its payload
   * pointer. An unusable guide throws `INVALID_GUIDE`.
   */
  guides?: object[]
  /** The interchange's date and time unless `date`/`time` are given. */
  now?: Now
}

/** A rendered interchange with the document as it maps back and the warnings. */
export interface RenderResult {
  x12: Buffer
  document: Record<string, unknown>
  warnings: Problem[]
}

/** Options of `write`. */
export interface WriteOptions {
  /** Written after every terminator; default: the line breaks recorded in the parse result. */
  lineBreak?: string
}

/** Options of webhook verification. */
export interface VerifyOptions {
  /** Allowed distance between the delivery's timestamp and now, in seconds. Default 300. */
  tolerance?: number
}

/** What a successful verification established. */
export interface Verified {
  /** The delivery's timestamp (Unix seconds). */
  timestamp: number
  /** Index of the secret that matched, in the order given. */
  secretIndex: number
}

/** The data of a webhook event. */
export interface EventData {
  documentId: string
  partnerId: string
  documentTypeCode: string
  status: string
  /** True when the event reports a document sent again on request (a resend); absent otherwise. */
  resend?: boolean
}

/** A signed delivery: send `body` byte for byte with `headers`. */
export interface Delivery {
  id: string
  event: string
  timestamp: number
  body: Buffer
  headers: Record<string, string>
}

/** A webhook secret: text (UTF-8) or bytes. */
export type Secret = string | Uint8Array

/** Request headers: Node's `req.headers` or a Fetch `Headers`. */
export type HeadersLike =
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null }

/** The error every x12kit call throws; `code` is the core's stable code (see `errorCodes()`). */
export declare class X12kitError extends Error {
  constructor(message: string, fields?: Partial<ErrorJson>)
  /** The stable UPPER_SNAKE code (`INVALID_PAYLOAD`, `SIGNATURE_MISMATCH`, ...). */
  code: string
  /** What to do with it: `invalid_input`, `rejected`, `io`, `internal`. */
  kind: ErrorKind
  /** JSON pointer of the offending value, when there is one. */
  pointer?: string
  /** Every problem found (render payload problems), errors first. */
  details: Problem[]
  /** The error as the core's JSON. */
  toJSON(): ErrorJson
}

/**
 * An error of the `invalid_input` kind (a wrong argument type, an unknown option,
 * malformed JSON): a `TypeError`, and also `instanceof X12kitError`.
 */
export declare class X12kitTypeError extends TypeError {
  constructor(message: string, fields?: Partial<ErrorJson>)
  /** The stable UPPER_SNAKE code (`INVALID_ARGUMENT`, `INVALID_OPTIONS`, `INVALID_JSON`, ...). */
  code: string
  /** Always `invalid_input` for this class. */
  kind: ErrorKind
  /** JSON pointer of the offending value, when there is one. */
  pointer?: string
  /** Every problem found, errors first. */
  details: Problem[]
  /** The error as the core's JSON. */
  toJSON(): ErrorJson
}

/** Parses X12 into the parse result (the JSON contract, as plain objects). Never fails on bad X12: see `diagnostics`. */
export declare function parse(input: Input, options?: ParseOptions): ParseResult
/** Parses X12; the parse result JSON as UTF-8 bytes (= `x12kit parse`). */
export declare function parseToJson(input: Input, options?: ParseOptions): Buffer
/**
 * `parse` with the core's work on the libuv thread pool. On a pool thread: the parse, the
 * mapped documents, the JSON text and its split into runs of at most 256 KB. On the main
 * thread (V8 objects can be made nowhere else): `JSON.parse` of one run at a time, yielding
 * to the event loop after each megabyte of JSON, so timers keep firing, but building the
 * objects is still main-thread CPU time (about 20% more than `parse`'s single `JSON.parse`).
 */
export declare function parseAsync(input: Input, options?: ParseOptions & AsyncOptions): Promise<ParseResult>

/** Validates X12: the envelope rules (and with `structure` the set structure). */
export declare function validate(input: Input, options?: ValidateOptions): ValidationResult
/** `validate` on the libuv thread pool (the result's JSON is read on the main thread when it resolves). */
export declare function validateAsync(input: Input, options?: ValidateOptions & AsyncOptions): Promise<ValidationResult>
/**
 * Validates a Readable (e.g. `fs.createReadStream`) or (async) iterable of chunks without
 * holding the input: memory is the longest segment plus one chunk, plus what the result keeps.
 * With the default `retain: 'all'` that grows with the input (a summary of every group and
 * set, about 290 bytes a set, as `validate` returns); pass `retain: 'counts'` for memory that
 * stays flat however large the stream (verdict, counts and diagnostics, no per-set summaries;
 * the diagnostics themselves are all kept). `retain: 'errors'` keeps only the sets not
 * accepted cleanly.
 */
export declare function validateStream(
  source: Readable | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  options?: ValidateOptions,
): Promise<ValidationResult>

/** Options of `transactions`. */
export interface TransactionsOptions {
  /** Map the declared set types back to their payload (`document`; default true). */
  documents?: boolean | null
  /** The cap on one transaction set, in bytes (0: none; default 64 MiB): a larger set is a `SET_TOO_LARGE` error, its segments skipped (it has no `segments` and no `document`), and the sets after it follow. */
  maxSetBytes?: number | null
  /** Receives every diagnostic of the input (the envelope's included) once the iteration ends. */
  onDiagnostics?: ((diagnostics: Diagnostic[]) => void) | null
}
/** One transaction set of `transactions`, with the envelope headers around it. */
export interface SetItem {
  /** The interchange's ISA fields (the parse result's interchange `header`). */
  interchange: Record<string, string>
  /** The group's GS fields, or null for a set outside any group. */
  group: Record<string, string> | null
  /** The parse result's set object: `type`, `controlNumber`, `segments`, `document`, `trailer`. */
  transaction: Transaction
  /** The diagnostics at the set's segments (ST through SE). */
  diagnostics: Diagnostic[]
}
/**
 * The transaction sets of a file of any size, one at a time, in bounded memory:
 * `source` is a file path (string or `URL`, mapped), a Readable or (async)
 * iterable of chunks (spooled to a temporary file), or a Buffer (copied once).
 * The parser runs on its own thread a few sets ahead; breaking out of the loop stops it.
 */
export declare function transactions(
  source: string | URL | Uint8Array | ArrayBuffer | Readable | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  options?: TransactionsOptions,
): AsyncGenerator<SetItem, void, undefined>

/**
 * A push validator: `feed` chunks of any size, then `finish`. Flat memory with
 * `retain: 'counts'`; with the default `'all'` the per-set summaries grow with the input
 * (see `validateStream`).
 */
export declare class StreamValidator {
  constructor(options?: ValidateOptions)
  /** Feeds the next chunk. */
  feed(chunk: Input): this
  /** Input bytes consumed so far. */
  readonly consumed: number
  /** Bytes held for findings still open. */
  readonly retainedBytes: number
  /** Ends the input; the validation result. */
  finish(): ValidationResult
}

/**
 * Acknowledges X12: the TA1/997/999 bytes (empty when nothing is to be acknowledged).
 * Pass a result of `validate`, `validateAsync`, `validateStream` or `StreamValidator.finish`
 * (not validated again), or the X12 input itself.
 */
export declare function acknowledge(validationOrInput: ValidationResult | Input, options?: AcknowledgeOptions): Buffer
/** Reads the TA1/997/999 acknowledgements in X12 input. */
export declare function readAcknowledgement(input: Input): Acknowledgements

/** Renders one document (payload object or JSON text) for a partner profile: the interchange bytes. */
export declare function render(documentType: string, payload: object | string, partner: object | string, options?: RenderOptions): Buffer
/** `render`, plus the document as it maps back and the warnings. */
export declare function renderResult(documentType: string, payload: object | string, partner: object | string, options?: RenderOptions): RenderResult
/** `render` on the libuv thread pool (a payload or partner object is `JSON.stringify`d on the main thread first). */
export declare function renderAsync(
  documentType: string,
  payload: object | string,
  partner: object | string,
  options?: RenderOptions & AsyncOptions,
): Promise<Buffer>
/** The JSON Schema of a document type's payload (`UNKNOWN_DOCUMENT_TYPE` otherwise). */
/**
 * With `partner` (a profile object or JSON text): the schema narrowed for it, by its version
 * for the type, its guide of the type (enums, const, lengths, patterns, required, not-used
 * fields left out) and its required fields (`INVALID_PARTNER` for an unusable profile).
 */
export declare function documentSchema(documentType: string, partner?: object | string): Record<string, unknown>
/** The JSON Schema of the partner profile. */
export declare function partnerSchema(): Record<string, unknown>
/** One element of a described segment (the core's declaration and X12 dictionary). */
export interface ElementDescription {
  /** 1-based position in the segment. */
  position: number
  /** X12 data element number, e.g. `"353"`, `"I01"`, `"C030"`. */
  number: string | null
  /** Its name in the X12 dictionary, e.g. `"Transaction Set Purpose Code"`. */
  name: string | null
  /** `ID`, `AN`, `N0`…`N9`, `R`, `DT`, `TM`, or `composite`. */
  type: string
  min: number | null
  max: number | null
  mandatory: boolean
  /** The declaration's one-line description. */
  description: string | null
  /** The payload field of a mapped element. */
  field: string | null
  /** The allowed codes, when the declaration closes the list. */
  codes: string[] | null
  /** The codes the declaration knows. */
  knownCodes: string[] | null
  /** The codes x12kit knows for this element, with what each means. */
  meanings: Array<{ code: string; meaning: string }>
}
/** What x12kit knows of a segment (`describeSegment`). */
export interface SegmentDescription {
  /** The set, when it is one of the 18 known sets. */
  set: string | null
  setName: string | null
  segment: string
  /** The segment's name in the X12 dictionary, e.g. `"Beginning Segment for Purchase Order"`. */
  segmentName: string | null
  /** Use in the set's structure; `null` for envelope and acknowledgment segments. */
  mandatory: boolean | null
  /** `null`: unbounded, or an envelope or acknowledgment segment. */
  maxUse: number | null
  elements: ElementDescription[]
}
/**
 * What x12kit knows of a segment of one of the 18 sets (its declaration and
 * the X12 dictionary it uses), or of an envelope or acknowledgment segment
 * (ISA, IEA, GS, GE, ST, SE, TA1, AK1–AK9, IK3–IK5, CTX) for any set or
 * none (`setType` `""`). `version`: GS08 (`004010`, `005010X222A1`), ISA12
 * (`00401`, `00501`) or `""` for the base edition. `null` when the segment is
 * neither. Throws `X12kitTypeError` (`INVALID_ARGUMENT`) when `segment` is not
 * a segment identifier (2 or 3 upper-case letters or digits) or `version`
 * not a version.
 */
export declare function describeSegment(setType: string, version: string, segment: string): SegmentDescription | null
/** Options of `payloadsFromCsv` (the names every language uses). */
export interface CsvOptions {
  /** The field separator: `","` (default) or `";"`. */
  delimiter?: string | null
  /** The header cell of the column whose value groups rows into documents (default: the first column). */
  documentKey?: string | null
  /** Rows under the header read at most (default 10000). */
  maxRows?: number | null
  /** A partner profile: its implementation guide's required fields are checked too. */
  partner?: Record<string, unknown> | null
  /** Also answer the rows as read (`table`). */
  table?: boolean | null
}
/** One document of a CSV. */
export interface CsvDocument {
  /** Its document key. */
  key: string
  /** Its business reference (the type's reference field), or null. */
  reference: string | null
  /** Its first and last rows (1-based; the header is row 1). */
  rows: [number, number]
  /** The payload. */
  payload: Record<string, unknown>
}
/** One problem of a CSV. */
export interface CsvProblem {
  /** 1-based; the header is row 1. */
  row: number
  /** The header cell (or the pointer with `*` of a field the file has no column of; empty for a whole row). */
  column: string
  /** JSON pointer into the document's payload (empty when none). */
  pointer: string
  /** `CSV_*`, or the renderer's `MISSING_FIELD`, `INVALID_FIELD` ... */
  code: string
  message: string
}
/** What a CSV makes (`payloadsFromCsv`). */
export interface CsvPayloads {
  documentTypeCode: string
  header: string[]
  documents: CsvDocument[]
  problems: CsvProblem[]
  /** With `table: true`: the rows under the header as read. */
  table?: string[][]
}
/**
 * CSV intake: the documents of `documentType` a CSV holds and every problem
 * at its row, column and pointer. The header row names JSON pointers into the
 * payload (`/purchaseOrderNumber`, `/shipTo/id`; a `*` step names the items
 * of a list, one item per row); consecutive rows with one document key (the first column)
 * are one document. Throws `X12kitError` (`UNKNOWN_DOCUMENT_TYPE`,
 * `INVALID_PARTNER`) or `X12kitTypeError` (`INVALID_OPTIONS`) for an unusable call.
 */
export declare function payloadsFromCsv(documentType: string, csv: string | Uint8Array, options?: CsvOptions): CsvPayloads
/** Control numbers to renumber from; a level left out keeps the original numbers. */
export interface Renumber {
  /** ISA13/IEA02 of the first part (or of the merged interchange), 1–999999999. */
  interchange?: number | null
  /** GS06/GE02 of the first group. */
  group?: number | null
  /** ST02/SE02 of the first set (written with at least four digits). */
  set?: number | null
}
/** Options of `split` (the names every language uses). */
export interface SplitOptions {
  /** What a part holds: `'set'` (default: one set, or up to `maxSets`) or `'group'`. */
  per?: 'set' | 'group' | null
  /** At most this many sets a part (default: 1 per set, no limit per group). */
  maxSets?: number | null
  /** A part is closed before a set would take it past this many bytes (a larger set alone makes a part). */
  maxBytes?: number | null
  renumber?: Renumber | null
  /** The cap on one transaction set, in bytes (0: none; default 64 MiB): a larger set is a `SET_TOO_LARGE` error, its segments skipped and in no part. */
  maxSetBytes?: number | null
}
/** Where a set of a part was in the input, and its numbers. */
export interface PartSet {
  /** ST01. */
  type: string
  /** ST02 in the part. */
  controlNumber: string
  /** ST02 in the input. */
  originalControlNumber: string
  /** Index of its ST among the input's segments (0-based). */
  segment: number
  /** Byte offset of its ST in the input. */
  offset: number
  /** Its bytes in the input, ST through SE (and the line break after it). */
  length: number
}
/** One part of a split: a complete interchange. */
export interface Part {
  interchangeControlNumber: string
  originalInterchangeControlNumber: string
  /** GS01 (`null` for sets outside any group). */
  functionalId: string | null
  groupControlNumber: string | null
  originalGroupControlNumber: string | null
  sets: PartSet[]
  /** How to make the part again later from the input alone (`rebuildPart`): keep this, not the part. */
  recipe: PartRecipe
  /** The part's X12. */
  x12: string
}
/**
 * What `rebuildPart` needs to make a part of `split` again: a few dozen bytes
 * whatever the part's size. Read `ranges` of the input (`[start, end)` byte
 * offsets: its ISA, its GS, the run of its sets, the GE or IEA that closed it)
 * one after the other and pass them with it.
 */
export interface PartRecipe {
  ranges: Array<[number, number]>
  /** Which of `ranges` is the run of sets. */
  setsRange: number
  /** The part's number of sets. */
  sets: number
  /** The input's segment index of its first ST. */
  segment: number
  /** The numbers of its interchange, group and first set, for the levels the split renumbered. */
  renumber: { interchange?: number; group?: number; set?: number }
  /** The split's cap on one set (a set over it is left out again). */
  maxSetBytes: number
}
/** The parts of an input and the diagnostics of reading it. */
export interface SplitResult {
  parts: Part[]
  diagnostics: Diagnostic[]
}
/**
 * Splits X12 into complete interchanges, each holding a set (or up to
 * `maxSets`, or a group), counts right, control numbers kept or renumbered,
 * with where each set was in the input. An input with envelope errors is
 * split as far as it can be, with the diagnostics. Throws `X12kitTypeError`
 * (`INVALID_OPTIONS`, `INVALID_CONTROL_NUMBER`) for unusable options.
 */
export declare function split(input: string | Uint8Array, options?: SplitOptions): SplitResult
/**
 * Makes a part of `split` again from its `recipe` and `bytes`, the input's
 * bytes in `recipe.ranges` one after the other (e.g. read with
 * `fs.readSync(fd, buf, off, end - start, start)` for each range): the same
 * part (numbers, positions, recipe, `x12`) without reading the rest of the
 * input. Throws `X12kitTypeError`: `INVALID_ARGUMENT` when the bytes do not
 * make that part (another input, or it changed since the split),
 * `INVALID_OPTIONS` (pointer `/recipe` or under it) or
 * `INVALID_CONTROL_NUMBER` for an unusable recipe.
 */
export declare function rebuildPart(recipe: PartRecipe, bytes: string | Uint8Array): Part
/** Options of `merge`. */
export interface MergeOptions {
  /** With `group`, groups of one functional id and application ids merge whatever their GS06. */
  renumber?: Renumber | null
}
/**
 * Merges interchanges of one sender/receiver pair, version and delimiters into
 * one (groups with the same GS become one). Throws `X12kitError`
 * `MERGE_REFUSED` (`details` name each input at fault: `/0`, `/1`),
 * `X12kitTypeError` (`INVALID_ARGUMENT` for no input, `INVALID_OPTIONS`).
 */
export declare function merge(inputs: Array<string | Uint8Array>, options?: MergeOptions): Buffer
/** The 18 transaction set codes x12kit renders, maps back and validates. */
export declare const documentTypes: readonly string[]

/** Writes a parse result (object or JSON text, possibly edited) back to X12. */
export declare function write(parseResult: ParseResult | string | Uint8Array, options?: WriteOptions): Buffer

/** A lazy view of one segment of the input; elements are split on demand. */
export declare class Segment {
  private constructor()
  /** The identifier (`ISA`, `BEG`, ...). */
  readonly id: string
  /** The segment text, terminator excluded. */
  readonly raw: string
  /** 0-based position of the segment in the input. */
  readonly index: number
  /** Byte offset of the segment in the input. */
  readonly offset: number
  /** Element `n`, 1-based as in X12; undefined past the last element. */
  element(n: number): string | undefined
  /** The elements after the identifier. */
  elements(): string[]
  /** The components of element `n` (one for a simple element). */
  components(n: number): string[]
  /** The repetitions of element `n`. */
  repetitions(n: number): string[]
  /** `{ id, index, offset, elements }` (for `JSON.stringify` and logging). */
  toJSON(): { id: string; index: number; offset: number; elements: string[] }
}

/**
 * Iterates the segments of an input as lazy views (no tree is built; the views keep the buffer).
 * The core finds the segments a batch at a time; `break` releases the iterator.
 */
export declare function segments(input: Input): IterableIterator<Segment>
/**
 * A Transform stream: X12 chunks in, `Segment` views out (object mode). It keeps nothing
 * between segments, so memory is flat whatever the input size (the longest segment plus one
 * chunk, as long as the consumer keeps up; it has no `retain` option). To validate a stream
 * in flat memory use `validateStream(source, { retain: 'counts' })`.
 */
export declare function createSegmentStream(): Transform

/** Verifies deliveries against one or more secrets (rotation) with a tolerance. */
export declare class Verifier {
  constructor(secrets: Secret | Secret[], options?: VerifyOptions)
  /** The tolerance in seconds. */
  readonly tolerance: number
  /** Verifies the signature and timestamp headers over the raw body. */
  verify(signature: string, timestamp: string | number, body: Input, now?: Now): Verified
  /** Verifies a request from its headers and raw body. */
  verifyHeaders(headers: HeadersLike, body: Input, now?: Now): Verified
}

/** Builds and signs deliveries with a secret. */
export declare class Signer {
  constructor(secret: Secret)
  /** The `sha256=<hex>` signature of `body` at `timestamp` (Unix seconds). */
  sign(timestamp: number, body: Input): string
  /** A signed delivery of `event` (`document.validated`, ...) with `data` at `now`. */
  deliver(event: string, data: EventData, now?: Now): Delivery
}

/** Webhook signing and verification. */
export declare const webhook: {
  /** The delivery header names. */
  readonly headers: { signature: string; timestamp: string; event: string; deliveryId: string }
  /** The `sha256=<hex>` signature of `body` signed at `timestamp` with `secret`. */
  sign(secret: Secret, timestamp: number, body: Input): string
  /** Verifies a delivery against any of `secrets` within the tolerance of `now`. */
  verify(
    secrets: Secret | Secret[],
    signature: string,
    timestamp: string | number,
    body: Input,
    options?: VerifyOptions & { now?: Now },
  ): Verified
  readonly Verifier: typeof Verifier
  readonly Signer: typeof Signer
}

/** Every error code of the core with its kind and meaning. */
export declare function errorCodes(): Array<{ code: string; kind: ErrorKind; meaning: string }>

declare const x12kit: {
  parse: typeof parse
  parseToJson: typeof parseToJson
  parseAsync: typeof parseAsync
  validate: typeof validate
  validateAsync: typeof validateAsync
  validateStream: typeof validateStream
  transactions: typeof transactions
  StreamValidator: typeof StreamValidator
  acknowledge: typeof acknowledge
  readAcknowledgement: typeof readAcknowledgement
  render: typeof render
  renderResult: typeof renderResult
  renderAsync: typeof renderAsync
  documentSchema: typeof documentSchema
  partnerSchema: typeof partnerSchema
  describeSegment: typeof describeSegment
  payloadsFromCsv: typeof payloadsFromCsv
  split: typeof split
  rebuildPart: typeof rebuildPart
  merge: typeof merge
  documentTypes: typeof documentTypes
  write: typeof write
  segments: typeof segments
  createSegmentStream: typeof createSegmentStream
  Segment: typeof Segment
  webhook: typeof webhook
  Verifier: typeof Verifier
  Signer: typeof Signer
  X12kitError: typeof X12kitError
  X12kitTypeError: typeof X12kitTypeError
  errorCodes: typeof errorCodes
}
export default x12kit
