'use strict'
// x12kit for Node: the public API over the generated native binding
// (binding.js / binding.d.ts, written by `napi build`). This file only checks
// JS argument types, turns core errors into X12kitError / X12kitTypeError,
// and adapts results to JS (JSON text -> objects, streams, iterators). Every
// X12 and signing decision is made by the Rust core.

const native = require('./binding.js')
const { Transform } = require('node:stream')

// ---------------------------------------------------------------- errors

const CODES = Object.freeze(
  native.errorCodes().map((c) => Object.freeze({ code: c.code, kind: c.kind, meaning: c.meaning })),
)
const KIND_OF = new Map(CODES.map((c) => [c.code, c.kind]))

function fill(err, e) {
  err.code = e.code
  err.kind = e.kind
  if (e.pointer !== undefined) err.pointer = e.pointer
  err.details = Array.isArray(e.details) ? e.details : []
  return err
}

/** The error every x12kit call throws: `code` is the core's stable code. */
class X12kitError extends Error {
  constructor(message, fields = {}) {
    super(message)
    this.name = 'X12kitError'
    fill(this, { code: 'INTERNAL', kind: 'internal', details: [], ...fields })
  }

  toJSON() {
    return errorJson(this)
  }
}

/** An X12kitError of the `invalid_input` kind: also a `TypeError`. */
class X12kitTypeError extends TypeError {
  constructor(message, fields = {}) {
    super(message)
    this.name = 'X12kitTypeError'
    fill(this, { code: 'INVALID_ARGUMENT', kind: 'invalid_input', details: [], ...fields })
  }

  toJSON() {
    return errorJson(this)
  }
}

// `err instanceof X12kitError` holds for both classes.
Object.defineProperty(X12kitError, Symbol.hasInstance, {
  value(obj) {
    return obj instanceof X12kitTypeError || Function.prototype[Symbol.hasInstance].call(this, obj)
  },
})

function errorJson(e) {
  const o = { code: e.code, kind: e.kind, message: e.message }
  if (e.pointer !== undefined) o.pointer = e.pointer
  o.details = e.details
  return o
}

function makeError(e) {
  const Cls = e.kind === 'invalid_input' ? X12kitTypeError : X12kitError
  return new Cls(e.message, e)
}

function typeError(message, code = 'INVALID_ARGUMENT') {
  return new X12kitTypeError(message, { code, kind: KIND_OF.get(code) || 'invalid_input' })
}

/** Turns whatever the native call threw into the public error. */
function fromNative(e) {
  if (e instanceof X12kitError) return e
  if (e && typeof e.message === 'string' && e.message.startsWith('{"code":"')) {
    try {
      return makeError(JSON.parse(e.message))
    } catch {
      // not the core's JSON after all: fall through
    }
  }
  if (e && typeof e.code === 'string' && /Expected$|^InvalidArg$/.test(e.code)) {
    // napi could not convert an argument (e.g. a Symbol inside the options).
    return typeError(e.message)
  }
  return e
}

function call(fn) {
  try {
    return fn()
  } catch (e) {
    throw fromNative(e)
  }
}

// ---------------------------------------------------------------- arguments

function describe(v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return `an object (${(v.constructor && v.constructor.name) || 'Object'})`
  return `${typeof v === 'undefined' ? '' : 'a '}${typeof v}`
}

/** Bytes of X12 (or JSON) input: Buffer, Uint8Array, ArrayBuffer or string. */
function bytes(v, name = 'input') {
  if (Buffer.isBuffer(v)) return v
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength)
  if (typeof v === 'string') return Buffer.from(v, 'utf8')
  if (v instanceof ArrayBuffer) return Buffer.from(v)
  throw typeError(`${name} must be a Buffer, Uint8Array or string, got ${describe(v)}`)
}

function text(v, name) {
  if (typeof v === 'string') return v
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8')
  throw typeError(`${name} must be a string, got ${describe(v)}`)
}

function jsonText(v, name) {
  if (typeof v === 'string') return v
  if (v instanceof Uint8Array) return text(v, name)
  if (v === null || typeof v !== 'object') {
    throw typeError(`${name} must be an object or JSON text, got ${describe(v)}`)
  }
  try {
    return JSON.stringify(v)
  } catch (e) {
    throw typeError(`${name} cannot be written as JSON: ${e.message}`)
  }
}

// Options go to the core as they are (it names what is wrong, with a
// pointer); only values JSON cannot hold are refused here.
function options(o, name = 'options') {
  if (o === undefined || o === null) return undefined
  const t = typeof o
  if (t === 'object' || t === 'number' || t === 'string' || t === 'boolean') return o
  const e = typeError(`${name} must be an object, got ${describe(o)}`, 'INVALID_OPTIONS')
  e.pointer = '/'
  throw e
}

function isPlainOptions(o) {
  return o !== null && typeof o === 'object' && !Array.isArray(o)
}

/** Splits `now` (a Date or Unix seconds) off an options object. */
function splitNow(o) {
  o = options(o)
  if (!isPlainOptions(o) || !('now' in o)) return [o, undefined]
  const { now, ...rest } = o
  return [rest, unixSeconds(now, 'options.now')]
}

function unixSeconds(v, name) {
  if (v === undefined || v === null) return undefined
  if (v instanceof Date) {
    const t = v.getTime()
    if (Number.isNaN(t)) throw typeError(`${name} is an invalid Date`)
    return Math.floor(t / 1000)
  }
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v
  throw typeError(`${name} must be a Date or whole Unix seconds >= 0, got ${describe(v)} ${String(v)}`)
}

function signalOf(o) {
  if (o === undefined || o === null) return [undefined, undefined]
  o = options(o)
  if (!isPlainOptions(o) || !('signal' in o)) return [o, undefined]
  const { signal, ...rest } = o
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw typeError(`options.signal must be an AbortSignal, got ${describe(signal)}`)
  }
  if (signal && signal.aborted) {
    throw new DOMException('the operation was aborted', 'AbortError')
  }
  return [rest, signal]
}

// ---------------------------------------------------------------- parse

/**
 * Parses X12 into the parse result: exactly the JSON contract of `x12kit parse`.
 * The core writes its JSON bytes and V8's JSON.parse builds the objects
 * (measured faster than building them natively with Node-API calls, which
 * `native.parseToObjects` does for bench/parse-paths.mjs, and Node's UTF-8
 * decoding of a Buffer no slower than napi's string creation; see README).
 */
function parse(input, opts) {
  const b = bytes(input)
  return JSON.parse(call(() => native.parseToJson(b, options(opts))).toString('utf8'))
}

/** Parses X12; the parse result JSON as UTF-8 bytes. */
function parseToJson(input, opts) {
  const b = bytes(input)
  return call(() => native.parseToJson(b, options(opts)))
}

/**
 * Parses X12 on the libuv thread pool; resolves to the parse result. The core
 * parses on the pool and splits its JSON into runs of array items of at most
 * 256 KB (src/split.rs); the objects, which can only be made on the main
 * thread, are then built run by run, yielding to the event loop after each
 * megabyte of JSON, so that timers and I/O keep going even while a 100 MB
 * file's objects are built.
 */
function parseAsync(input, opts) {
  return run(() => {
    const b = bytes(input)
    const [o, signal] = signalOf(opts)
    return native.parseSplitAsync(b, o, signal)
  }).then(assemble)
}

// The key of the placeholder that stands for run k in a skeleton: `{"\u0000": k}`.
const RUN = '\u0000'
// JSON bytes built between two yields to the event loop.
const YIELD_BYTES = 1 << 20

const isRun = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && RUN in v

/** The arrays of `v` (depth first) that hold a run placeholder. */
function arraysWithRuns(v, out) {
  if (Array.isArray(v)) {
    let has = false
    for (const x of v) {
      if (isRun(x)) has = true
      else if (x !== null && typeof x === 'object') arraysWithRuns(x, out)
    }
    if (has) out.push(v)
  } else if (v !== null && typeof v === 'object') {
    for (const k in v) {
      const x = v[k]
      if (x !== null && typeof x === 'object') arraysWithRuns(x, out)
    }
  }
  return out
}

/**
 * Builds the value of a split JSON (`{ skeleton, json, runs }`): the same as
 * `JSON.parse` of the whole JSON, made in slices with `await`s between them;
 * `onYield` (tests) is called at each yield.
 */
async function assemble(split, onYield) {
  const root = JSON.parse(split.skeleton)
  const runs = split.runs
  if (runs.length === 0) return root
  const json = split.json
  const parsed = new Array(runs.length / 2)
  let since = 0
  for (let k = 0; k < parsed.length; k++) {
    const a = runs[2 * k]
    const b = runs[2 * k + 1]
    parsed[k] = JSON.parse(`[${json.toString('utf8', a, b)}]`)
    since += b - a
    if (since >= YIELD_BYTES && k + 1 < parsed.length) {
      since = 0
      if (onYield) onYield()
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  for (const arr of arraysWithRuns(root, [])) {
    const items = arr.splice(0, arr.length)
    for (const x of items) {
      if (isRun(x)) {
        for (const y of parsed[x[RUN]]) arr.push(y)
      } else {
        arr.push(x)
      }
    }
  }
  return root
}

function run(start) {
  let p
  try {
    p = start()
  } catch (e) {
    return Promise.reject(fromNative(e))
  }
  return p.catch((e) => {
    throw fromNative(e)
  })
}

// ---------------------------------------------------------------- validate

const HANDLE = Symbol('x12kit.validation')

/** Validates X12: the validation result (= `x12kit validate --json`). */
function validate(input, opts) {
  const b = bytes(input)
  return validationResult(call(() => native.validate(b, options(opts))))
}

/**
 * The validation result object of the native `{ json, handle }`; it keeps
 * the handle (hidden) for `acknowledge`. The handle owns the core's result
 * in the addon, which frees it once the result object is collected, also
 * inside a synchronous loop (see src/held.rs).
 */
function validationResult({ json, handle }) {
  const result = JSON.parse(json)
  Object.defineProperty(result, HANDLE, { value: handle, enumerable: false })
  return result
}

/** Validates X12 on the libuv thread pool; resolves to the validation result. */
function validateAsync(input, opts) {
  return run(() => {
    const b = bytes(input)
    const [o, signal] = signalOf(opts)
    return native.validateAsync(b, o, signal)
  }).then(validationResult)
}

/**
 * A push validator: `feed(chunk)` as chunks arrive, then `finish()`. Its
 * native state is freed by `finish()` (or once an unfinished validator is
 * collected).
 */
class StreamValidator {
  constructor(opts) {
    this._handle = call(() => native.streamValidatorNew(options(opts)))
  }

  feed(chunk) {
    const b = bytes(chunk, 'chunk')
    call(() => native.streamValidatorFeed(this._handle, b))
    return this
  }

  get consumed() {
    return call(() => native.streamValidatorCounts(this._handle))[0]
  }

  get retainedBytes() {
    return call(() => native.streamValidatorCounts(this._handle))[1]
  }

  finish() {
    return validationResult(call(() => native.streamValidatorFinish(this._handle)))
  }
}

/**
 * Validates a stream of chunks (a Node Readable such as fs.createReadStream,
 * or any (async) iterable of Buffers/strings) without holding the input.
 * Memory is flat with `retain: 'counts'`; the default `'all'` keeps a summary
 * per set (about 290 bytes each), which grows with the input.
 */
async function validateStream(source, opts) {
  if (!source || (typeof source[Symbol.asyncIterator] !== 'function' && typeof source[Symbol.iterator] !== 'function')) {
    throw typeError(`source must be a Readable or an (async) iterable of chunks, got ${describe(source)}`)
  }
  const v = new StreamValidator(opts)
  for await (const chunk of source) v.feed(chunk)
  return v.finish()
}

// ---------------------------------------------------------------- sets one at a time

/**
 * Spools an (async) iterable of chunks (a Readable) into a temporary file,
 * which is removed once the reader has it open (or, where a mapped file cannot
 * be removed, when the iteration ends): memory is one chunk.
 */
async function spool(source) {
  const fs = require('node:fs')
  const os = require('node:os')
  const path = require('node:path')
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'x12kit-'))
  const file = path.join(dir, 'input.x12')
  const out = await fs.promises.open(file, 'w')
  try {
    for await (const chunk of source) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : bytes(chunk, 'chunk')
      await out.write(b)
    }
  } catch (e) {
    await out.close()
    await fs.promises.rm(dir, { recursive: true, force: true })
    throw e
  }
  await out.close()
  return { file, remove: () => fs.promises.rm(dir, { recursive: true, force: true }) }
}

/**
 * The transaction sets of a file of any size, one at a time, as an async
 * iterator, in bounded memory. `source`: a file path (string or `URL`), a
 * `Readable` or (async) iterable of chunks (spooled to a temporary file), or a
 * `Buffer`/`Uint8Array` (copied once). Each set is `{ interchange: {ISA fields,
 * as the parse result's interchange header}, group: {GS fields} | null,
 * transaction: { type, controlNumber, segments, document (mapped; `documents:
 * false` leaves it out), trailer }, diagnostics: [those at the set's
 * segments] }`. The parser runs on a thread of its own a few sets ahead; the
 * event loop never waits for it. Breaking out of the loop stops it.
 * `options.onDiagnostics(list)`, if given, receives every diagnostic of the
 * input (the envelope's included) at the end.
 */
async function* transactions(source, opts) {
  let onDiagnostics
  if (isPlainOptions(opts) && 'onDiagnostics' in opts) {
    onDiagnostics = opts.onDiagnostics
    opts = { ...opts }
    delete opts.onDiagnostics
    if (typeof onDiagnostics !== 'function') throw typeError('onDiagnostics must be a function')
  }
  const o = options(opts)
  let reader
  let spooled
  if (typeof source === 'string' || source instanceof URL) {
    const p = typeof source === 'string' ? source : require('node:url').fileURLToPath(source)
    reader = call(() => new native.SetReader(p, null, o))
  } else if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
    reader = call(() => new native.SetReader(null, bytes(source, 'source'), o))
  } else if (source && (typeof source[Symbol.asyncIterator] === 'function' || typeof source[Symbol.iterator] === 'function')) {
    call(() => new native.SetReader(null, null, o)).close() // the options are checked before the stream is read
    spooled = await spool(source)
    try {
      reader = call(() => new native.SetReader(spooled.file, null, o))
    } catch (e) {
      await spooled.remove()
      throw e
    }
    // Mapped: on Linux and macOS the file can go at once.
    if (process.platform !== 'win32') {
      await spooled.remove()
      spooled = undefined
    }
  } else {
    throw typeError(`source must be a file path, a Readable or (async) iterable of chunks, or a Buffer, got ${describe(source)}`)
  }
  try {
    for (;;) {
      const json = await reader.next().catch((e) => {
        throw fromNative(e)
      })
      if (json === null) break
      yield JSON.parse(json)
    }
    if (onDiagnostics) onDiagnostics(JSON.parse(reader.diagnostics() ?? '[]'))
  } finally {
    reader.close()
    if (spooled) await spooled.remove()
  }
}

// ---------------------------------------------------------------- acknowledge

/**
 * Acknowledges X12 (TA1/997/999 bytes; empty when nothing is to be acknowledged).
 * `validationOrInput` is a result of `validate()`, `validateAsync()`, `validateStream()`
 * or `StreamValidator.finish()` (no second validation), or the X12 itself.
 */
function acknowledge(validationOrInput, opts) {
  const [o, now] = splitNow(opts)
  const v = validationOrInput
  if (v && typeof v === 'object' && v[HANDLE]) {
    return call(() => native.acknowledgeValidation(v[HANDLE], o, now))
  }
  if (v && typeof v === 'object' && !(v instanceof Uint8Array) && !(v instanceof ArrayBuffer)) {
    throw typeError('acknowledge takes a validation result of x12kit (validate, validateAsync, validateStream) or the X12 input; this object did not come from x12kit')
  }
  const b = bytes(v, 'validationOrInput')
  return call(() => native.acknowledgeInput(b, o, now))
}

/** Reads the TA1/997/999 acknowledgements in X12 input. */
function readAcknowledgement(input) {
  const b = bytes(input)
  return JSON.parse(call(() => native.readAcknowledgementToString(b)))
}

// ---------------------------------------------------------------- render / schemas / write

function renderArgs(documentType, payload, partner) {
  return [text(documentType, 'documentType'), jsonText(payload, 'payload'), jsonText(partner, 'partner')]
}

function renderedResult(r) {
  return { x12: r.x12, document: JSON.parse(r.document), warnings: JSON.parse(r.warnings) }
}

/** Renders one document for a partner profile: the interchange X12 bytes. */
function render(documentType, payload, partner, opts) {
  return renderNative(documentType, payload, partner, opts).x12
}

/** Renders and also returns the document as it maps back and the warnings. */
function renderResult(documentType, payload, partner, opts) {
  return renderedResult(renderNative(documentType, payload, partner, opts))
}

function renderNative(documentType, payload, partner, opts) {
  const args = renderArgs(documentType, payload, partner)
  const [o, now] = splitNow(opts)
  return call(() => native.renderJson(...args, o, now))
}

/** `render` on the libuv thread pool. */
function renderAsync(documentType, payload, partner, opts) {
  return run(() => {
    const args = renderArgs(documentType, payload, partner)
    const [o1, signal] = signalOf(opts)
    const [o, now] = splitNow(o1)
    return native.renderJsonAsync(...args, o, now, signal)
  }).then((r) => r.x12)
}

/** The JSON Schema of a document type's payload; with a partner profile (object or JSON text), narrowed for it. */
function documentSchema(documentType, partner) {
  const t = text(documentType, 'documentType')
  const p = partner === undefined || partner === null ? undefined : jsonText(partner, 'partner')
  return JSON.parse(call(() => native.documentSchemaJson(t, p)))
}

/** The JSON Schema of the partner profile. */
function partnerSchema() {
  return JSON.parse(call(() => native.partnerSchemaJson()))
}

/**
 * What x12kit knows of a segment: its name and each element's data element
 * number, name, type, lengths and code meanings (the core's declarations and
 * X12 dictionary); `null` when it does not describe the segment.
 */
function describeSegment(setType, version, segment) {
  const t = text(setType, 'setType')
  const v = text(version, 'version')
  const s = text(segment, 'segment')
  return JSON.parse(call(() => native.describeSegmentJson(t, v, s)))
}

/**
 * CSV intake: the documents of `documentType` a CSV holds and every problem at
 * its row, column and pointer (the header row names JSON pointers into the
 * payload; consecutive rows with one document key are one document).
 */
function payloadsFromCsv(documentType, csv, opts) {
  const t = text(documentType, 'documentType')
  const b = bytes(csv, 'csv')
  return JSON.parse(call(() => native.payloadsFromCsvJson(t, b, options(opts))))
}

/**
 * Splits X12 into complete interchanges, each holding a set (`per: 'set'`, the
 * default; up to `maxSets` sets) or a group (`per: 'group'`), closed before a
 * set would take it past `maxBytes`: envelopes copied, GE01/IEA01 counted,
 * control numbers kept or renumbered from `renumber: {interchange, group, set}`;
 * each part says where its sets were in the input. An input with envelope
 * errors is split as far as it can be, with the diagnostics.
 */
function split(input, opts) {
  const b = bytes(input)
  return JSON.parse(call(() => native.splitX12Json(b, options(opts))))
}

/**
 * Makes a part of `split` again from its `recipe` (the part's `recipe`) and
 * `bytes`, the input's bytes in `recipe.ranges` (`[start, end)` offsets: its
 * ISA, GS, run of sets, GE and IEA) one after the other: the same part object
 * (numbers, sets with their positions in the input, `recipe`, `x12`) without
 * reading the rest of the input. Throws `X12kitTypeError` `INVALID_ARGUMENT`
 * when the bytes are not the ranges' length or do not make that part (another
 * input, or it changed since the split), `INVALID_OPTIONS` (pointer `/recipe`
 * or under it) or `INVALID_CONTROL_NUMBER` for an unusable recipe.
 */
function rebuildPart(recipe, input) {
  const t = typeof recipe
  if (recipe === undefined || t === 'function' || t === 'symbol' || t === 'bigint') {
    const e = typeError(`recipe must be the \`recipe\` object of a part of split(), got ${describe(recipe)}`, 'INVALID_OPTIONS')
    e.pointer = '/recipe'
    throw e
  }
  const b = bytes(input, 'bytes')
  return JSON.parse(call(() => native.rebuildPartJson(recipe, b)))
}

/**
 * Merges interchanges of one sender/receiver pair, version and delimiters
 * (`inputs`: an array of Buffers, Uint8Arrays or strings, each one or more
 * interchanges) into one interchange (a Buffer of X12). Throws `X12kitError`
 * `MERGE_REFUSED` (`details` name each input at fault, `/0`, `/1`).
 */
function merge(inputs, opts) {
  if (!Array.isArray(inputs)) {
    throw typeError(`inputs must be an array of Buffers, Uint8Arrays or strings, got ${describe(inputs)}`)
  }
  const list = inputs.map((v, k) => bytes(v, `inputs[${k}]`))
  return call(() => native.merge(list, options(opts)))
}

/** The 18 transaction set codes x12kit renders, maps back and validates. */
const documentTypes = Object.freeze(native.documentTypes())

/** Writes a parse result (object or JSON text, possibly edited) back to X12. */
function write(parseResult, opts) {
  // Bytes go to the core as they are (it checks that they are UTF-8).
  const b = parseResult instanceof Uint8Array ? parseResult : Buffer.from(jsonText(parseResult, 'parseResult'), 'utf8')
  return call(() => native.writeJson(b, options(opts)))
}

// ---------------------------------------------------------------- segments

const FIELDS = 8
// Identifier strings by their packed bytes (see src/segments.rs): the few
// distinct identifiers of a file are decoded once.
const IDS = new Map()
// Segments per native call: 64 in the first batch (a loop that stops early,
// or a small input, does not pay for more), then 1024. Each batch gets a
// fresh Float64Array, which the views of its segments share: a view is 3
// fields (buffer, numbers, offset) and reads its numbers only when asked.
const FIRST_BATCH = 64
const BATCH = 1024

/** A lazy view of one segment; elements are split by the core on demand. */
class Segment {
  constructor(buf, f, o) {
    this._buf = buf
    this._f = f
    this._o = o
  }

  /** 0-based position of the segment in the input. */
  get index() {
    return this._f[this._o + 3]
  }

  /** Byte offset of the segment in the input. */
  get offset() {
    return this._f[this._o + 6]
  }

  /** The segment identifier (`ISA`, `BEG`, ...). */
  get id() {
    const f = this._f
    const o = this._o
    const code = f[o + 7]
    if (code === 0) return this._buf.toString('utf8', f[o], f[o] + f[o + 4])
    let id = IDS.get(code)
    if (id === undefined) {
      id = this._buf.latin1Slice(f[o], f[o] + f[o + 4])
      if (IDS.size < 4096) IDS.set(code, id)
    }
    return id
  }

  /** The segment's text, terminator excluded. */
  get raw() {
    const start = this._f[this._o]
    return this._buf.toString('utf8', start, start + this._f[this._o + 1])
  }

  /** Element `n` (1-based as in X12: `element(1)` of `BEG*00*SA` is `'00'`), or undefined. */
  element(n) {
    const f = this._f
    const o = this._o
    const v = call(() => native.segmentElement(this._buf, f[o], f[o + 1], f[o + 5], position(n)))
    return v === null ? undefined : v
  }

  /** The elements after the identifier. */
  elements() {
    const f = this._f
    const o = this._o
    return call(() => native.segmentElements(this._buf, f[o], f[o + 1], f[o + 5]))
  }

  /** The components of element `n` (one for a simple element; [] past the end). */
  components(n) {
    const f = this._f
    const o = this._o
    return call(() => native.segmentComponents(this._buf, f[o], f[o + 1], f[o + 5], position(n)))
  }

  /** The repetitions of element `n`. */
  repetitions(n) {
    const f = this._f
    const o = this._o
    return call(() => native.segmentRepetitions(this._buf, f[o], f[o + 1], f[o + 5], position(n)))
  }

  toJSON() {
    return { id: this.id, index: this.index, offset: this.offset, elements: this.elements() }
  }
}

function position(n) {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw typeError(`the element position must be a whole number >= 1, got ${describe(n)} ${String(n)}`)
  }
  return n
}

/**
 * The iterator of `segments()`: asks the core for a batch of segment
 * positions at a time (64 in the first native call, then 1024 a call) and hands out a
 * small view per segment.
 */
class SegmentIterator {
  constructor(buf) {
    this._buf = buf
    // The native cursor does not keep the input: each fill is given it.
    this._cursor = call(() => native.segmentCursorNew())
    this._f = null
    this._o = 0
    this._end = 0
    this._batch = FIRST_BATCH
  }

  next() {
    if (this._o === this._end && !this._fill()) return { value: undefined, done: true }
    const s = new Segment(this._buf, this._f, this._o)
    this._o += FIELDS
    return { value: s, done: false }
  }

  _fill() {
    if (this._cursor === null) return false
    const f = new Float64Array(FIELDS * this._batch)
    this._batch = BATCH
    // At the end the native cursor is freed (n === 0).
    const n = call(() => native.segmentCursorFill(this._cursor, this._buf, f))
    if (n === 0) {
      this._cursor = null
      return false
    }
    this._f = f
    this._o = 0
    this._end = n * FIELDS
    return true
  }

  /** Stops early (a `break` out of `for...of`): the native cursor is freed now. */
  return(value) {
    if (this._cursor !== null) {
      const c = this._cursor
      this._cursor = null
      call(() => native.segmentCursorClose(c))
    }
    this._o = this._end = 0
    return { value, done: true }
  }

  [Symbol.iterator]() {
    return this
  }
}

/**
 * Iterates the segments of an X12 input as lazy views, without building the
 * tree. The views keep the input buffer (no copy).
 */
function segments(input) {
  return new SegmentIterator(bytes(input))
}

/**
 * A Transform stream: write X12 chunks (from fs.createReadStream, a socket...),
 * read `Segment` views (object mode). Memory is bounded by the longest segment
 * plus one chunk.
 */
function createSegmentStream() {
  const splitter = call(() => new native.SegmentSplitter())
  const emit = (stream, batch) => {
    const f = batch.fields
    for (let o = 0; o < f.length; o += FIELDS) stream.push(new Segment(batch.bytes, f, o))
  }
  return new Transform({
    readableObjectMode: true,
    transform(chunk, encoding, cb) {
      try {
        const b = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : bytes(chunk, 'chunk')
        emit(this, call(() => splitter.push(b)))
        cb()
      } catch (e) {
        cb(e)
      }
    },
    flush(cb) {
      try {
        emit(this, call(() => splitter.push(null)))
        cb()
      } catch (e) {
        cb(e)
      }
    },
  })
}

// ---------------------------------------------------------------- webhooks

const HEADERS = Object.freeze(native.webhookHeaderNames())

function secretBytes(s, name) {
  if (typeof s === 'string') return Buffer.from(s, 'utf8')
  if (s instanceof Uint8Array) return s
  throw typeError(`${name} must be a string or Buffer, got ${describe(s)}`)
}

function secretList(secrets) {
  const list = Array.isArray(secrets) ? secrets : [secrets]
  return list.map((s, i) => secretBytes(s, Array.isArray(secrets) ? `secrets[${i}]` : 'secret'))
}

function timestampNumber(t) {
  if (typeof t === 'number' && Number.isSafeInteger(t) && t >= 0) return t
  throw typeError(`timestamp must be whole Unix seconds >= 0, got ${describe(t)} ${String(t)}`)
}

function headerValue(headers, name) {
  if (!headers || typeof headers !== 'object') throw typeError(`headers must be an object, got ${describe(headers)}`)
  const v = typeof headers.get === 'function' ? headers.get(name) : headers[name.toLowerCase()] ?? headers[name]
  if (Array.isArray(v)) return v.join(', ')
  return v === undefined || v === null ? '' : String(v)
}

/** Verifies deliveries against one or more secrets (rotation) with a tolerance. */
class Verifier {
  /** @param secrets one secret or several (any order); @param opts `{ tolerance }` seconds (default 300). */
  constructor(secrets, opts) {
    const list = secretList(secrets)
    this._inner = call(() => new native.Verifier(list, options(opts)))
  }

  /** The tolerance in seconds. */
  get tolerance() {
    return this._inner.tolerance
  }

  /** Verifies the signature and timestamp headers over the raw body; `now` defaults to the clock. */
  verify(signature, timestamp, body, now) {
    const sig = text(signature, 'signature')
    const ts = typeof timestamp === 'number' ? String(timestamp) : text(timestamp, 'timestamp')
    const b = bytes(body, 'body')
    const n = unixSeconds(now, 'now')
    return call(() => this._inner.verify(sig, ts, b, n))
  }

  /** Verifies a request from its headers (Node's req.headers or a Fetch Headers) and raw body. */
  verifyHeaders(headers, body, now) {
    return this.verify(headerValue(headers, HEADERS.signature), headerValue(headers, HEADERS.timestamp), body, now)
  }
}

/** Builds and signs deliveries with a secret. */
class Signer {
  constructor(secret) {
    const s = secretBytes(secret, 'secret')
    this._inner = call(() => new native.Signer(s))
  }

  /** The `sha256=<hex>` signature of `body` at `timestamp` (Unix seconds). */
  sign(timestamp, body) {
    const t = timestampNumber(timestamp)
    const b = bytes(body, 'body')
    return call(() => this._inner.sign(t, b))
  }

  /** A signed delivery: `{ id, event, timestamp, body, headers }` (headers as an object). */
  deliver(event, data, now) {
    const e = text(event, 'event')
    const n = unixSeconds(now, 'now')
    const d = call(() => this._inner.deliver(e, data, n))
    return { id: d.id, event: d.event, timestamp: d.timestamp, body: d.body, headers: Object.fromEntries(d.headers) }
  }
}

const webhook = Object.freeze({
  /** The delivery header names (`signature`, `timestamp`, `event`, `deliveryId`). */
  headers: HEADERS,
  /** The `sha256=<hex>` signature of `body` signed at `timestamp` with `secret`. */
  sign(secret, timestamp, body) {
    const s = secretBytes(secret, 'secret')
    const t = timestampNumber(timestamp)
    const b = bytes(body, 'body')
    return call(() => native.webhookSign(s, t, b))
  },
  /** Verifies a delivery; `{ tolerance, now }`. Returns `{ timestamp, secretIndex }`. */
  verify(secrets, signature, timestamp, body, opts) {
    const list = secretList(secrets)
    const sig = text(signature, 'signature')
    const ts = typeof timestamp === 'number' ? String(timestamp) : text(timestamp, 'timestamp')
    const b = bytes(body, 'body')
    const [o, now] = splitNow(opts)
    return call(() => native.webhookVerify(list, sig, ts, b, o, now))
  },
  Verifier,
  Signer,
})

/** Every error code of the core: `{ code, kind, meaning }`. */
function errorCodes() {
  return CODES.map((c) => ({ ...c }))
}

module.exports = {
  parse,
  parseToJson,
  parseAsync,
  validate,
  validateAsync,
  validateStream,
  StreamValidator,
  transactions,
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
}

// Test hooks (not part of the public API).
Object.defineProperty(module.exports, '__native', { value: native, enumerable: false })
Object.defineProperty(module.exports, '__fromNative', { value: fromNative, enumerable: false })
Object.defineProperty(module.exports, '__assemble', { value: assemble, enumerable: false })
