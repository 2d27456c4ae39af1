//! `x12kit-wasm`: the x12kit core for browsers and Node, through wasm-bindgen.
//!
//! The boundary is bytes and plain option objects in, JSON (or bytes) out,
//! exactly as in the Node addon: every function converts its arguments,
//! calls one `x12kit::ops` function and converts the result or the error.
//! There is no X12 logic here. Errors become JS `Error` objects carrying
//! the core's stable `code`, `kind`, `pointer` and `details`
//! (the `error` module); "now" comes from `Date.now()` unless a call is given one.

mod convert;
mod error;
mod inspect;
mod segments;
mod sets;

// Panics as INTERNAL errors; validation results kept for `acknowledge`.
mod panic;
mod validation;

use convert::{
    bytes_arg, json_bytes_to_js, json_text_arg, options_and_now, options_arg, string_arg,
};
use error::{Result, to_js};
use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use x12kit::ops;
use x12kit::time::DateTime;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** X12 input: the bytes of a file, or its text (encoded as UTF-8). */
export type X12Input = Uint8Array | ArrayBuffer | string;
/** `parse` options (all optional). */
export interface ParseOptions {
  documents?: boolean;
  /** The cap on one transaction set, in bytes (0: none; default 64 MiB): a larger set is a `SET_TOO_LARGE` error, its segments skipped (it has no `segments` and no `document`), and the sets after it follow. */
  maxSetBytes?: number;
}
/** `validate` / `StreamValidator` options (all optional). */
export interface ValidateOptions {
  /** Also check each known set's structure (segments, loops, elements, codes). Default false. */
  structure?: boolean;
  /**
   * Which group and set summaries the result keeps: `all` (default), `errors` (only the sets
   * not accepted cleanly: enough for an errors-only acknowledgement) or `counts` (none: a
   * stream of millions of sets validates in flat memory; verdict and counts are unchanged).
   */
  retain?: "all" | "errors" | "counts";
  /**
   * Partners' implementation guides (objects of `schema/guide.schema.json`): each set a guide
   * names (type and version) is also checked against it (`GUIDE_*` diagnostics with
   * `guidePointer`). Implies `structure`. An unusable guide throws `INVALID_GUIDE`.
   */
  guides?: object[];
}
/** "now" for the calls that date their output: a `Date` or Unix seconds; default `Date.now()`. */
export interface WithNow { now?: Date | number }
/** `acknowledge` options (all optional). */
export interface AcknowledgeOptions extends WithNow {
  kind?: "auto" | "ta1" | "997" | "999"; structure?: boolean; errorsOnly?: boolean;
  interchangeControlNumber?: number; groupControlNumber?: number; setControlNumber?: number;
  date?: string; time?: string; lineBreak?: string;
  /** Partners' implementation guides the input is validated against: a 999 carries their implementation codes (IK304 I4…, IK403 I6…). */
  guides?: object[];
}
/** `render` options (all optional). */
export interface RenderOptions extends WithNow {
  controlNumbers?: { interchange?: number; group?: number; transaction?: number };
  date?: string; time?: string;
  /** Partners' implementation guides: the one of the type and the partner's version (before the profile's own `guides`) is applied; a payload that breaks it throws `INVALID_PAYLOAD` with every `GUIDE_*` problem at its payload pointer. */
  guides?: object[];
}
/** `write` options (all optional). */
export interface WriteOptions { lineBreak?: string }
/** `webhook.verify` options (all optional). */
export interface VerifyOptions extends WithNow { tolerance?: number }
/** One problem of a refused call (render payload problems, ...). */
export interface Problem { severity: "error" | "warning"; code: string; pointer: string; message: string }
/** What every x12kit error carries: a `TypeError` named `X12kitTypeError` for invalid input (the call is wrong), else an `Error` named `X12kitError`. */
export interface X12kitErrorFields {
  code: string; kind: "invalid_input" | "rejected" | "io" | "internal"; pointer?: string; details: Problem[];
}
/** The result of `render`. */
export interface Rendered { x12: Uint8Array; document: Record<string, unknown>; warnings: Problem[] }
/** One element: a string, the components of a composite, or `{ repeat }` for repetitions. */
export type Element = string | string[] | { repeat: Array<string | string[]> };
/** One segment of a parse result. */
export interface SegmentJson { id: string; elements: Element[]; lineBreak?: string; [key: string]: unknown }
/** One finding about the X12 input (not an error: the input was still read). */
export interface Diagnostic {
  severity: "error" | "warning"; code: string; message: string;
  segmentIndex?: number; segmentId?: string; element?: number; offset?: number;
  /** For a departure from a partner's guide: the pointer of the guide's rule it breaks. */
  guidePointer?: string; [key: string]: unknown;
}
/** One ST…SE transaction set (`document` when its type is one of the 18 known ones). */
export interface Transaction {
  type?: string; controlNumber?: string; segments: SegmentJson[]; trailer: SegmentJson | null;
  document?: Record<string, unknown>; [key: string]: unknown;
}
/** One GS…GE functional group. */
export interface Group { header: Record<string, string> | null; transactions: Transaction[]; trailer: SegmentJson | null; [key: string]: unknown }
/** One ISA…IEA interchange. */
export interface Interchange {
  delimiters: { element: string; component: string; repetition: string | null; segment: string };
  lineBreak: string; header: Record<string, string>; groups: Group[]; trailer: SegmentJson | null; [key: string]: unknown;
}
/** The parse result: exactly the JSON of `x12kit parse` (schema/parse-result.schema.json). */
export interface ParseResult {
  interchanges: Interchange[]; diagnostics: Diagnostic[]; prefix?: string;
  /** Present when the input's last segment has no terminator (TERMINATOR_MISSING); `write` leaves it off too. */
  unterminated?: true; [key: string]: unknown;
}
/**
 * The validation result: exactly the JSON of `x12kit validate --json`
 * (schema/validation-result.schema.json). The object `validate` and
 * `StreamValidator.finish` return also keeps the validation for `acknowledge`
 * (a copy made with JSON or a spread does not).
 */
export interface ValidationResult {
  valid: boolean; errorCount: number; warningCount: number;
  interchanges: Array<Record<string, unknown>>; diagnostics: Diagnostic[];
  acknowledgements?: Array<Record<string, unknown>>; [key: string]: unknown;
}
/** What the TA1/997/999 acknowledgements in an input accept or reject. */
export type Acknowledgements = Record<string, unknown>;
"#;

/// Runs when the module is instantiated (and re-instantiated after a panic):
/// installs the hook that turns a panic into an `INTERNAL` error ([`panic`]).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start, js_name = __start, skip_typescript)]
fn start() {
    panic::install();
}

/// Internal, for the tests only (not in the `.d.ts`): the size of the
/// module's linear memory in bytes (it grows in 64 KiB pages and never shrinks).
#[wasm_bindgen(js_name = __memoryBytes, skip_typescript)]
pub fn memory_bytes() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        (core::arch::wasm32::memory_size(0) * 65536) as f64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.0
    }
}

/// Internal, for the tests only (not in the `.d.ts`): panics inside a call,
/// which must reach JS as an `INTERNAL` error and leave later calls working.
#[wasm_bindgen(js_name = __panicForTests, skip_typescript)]
pub fn panic_for_tests(message: &str) {
    panic!("{message}");
}

/// Internal, for the tests only (not in the `.d.ts`): the next chunk a
/// `transactions()` or `splitStream()` iterator reads panics (`message`)
/// inside its asynchronous step, which must reject that `next()` with an
/// `INTERNAL` error and end the iteration (README, Panics). Harmless: it
/// only makes one later stream step fail as a bug would.
#[wasm_bindgen(js_name = __panicInStreamForTests, skip_typescript)]
pub fn panic_in_stream_for_tests(message: String) {
    sets::PANIC_FOR_TESTS.with(|p| *p.borrow_mut() = Some(message));
}

/// Parses X12 and returns the parse result (the JSON contract) as a plain object.
#[wasm_bindgen(skip_typescript)]
pub fn parse(input: &JsValue, options: &JsValue) -> Result<JsValue> {
    let bytes = bytes_arg(input, "input")?;
    let o: ops::ParseOptions = options_arg(options)?;
    json_bytes_to_js(&ops::parse_json(&bytes, &o))
}

/// Parses X12 and returns the parse result as UTF-8 JSON bytes (identical to `x12kit parse`).
#[wasm_bindgen(js_name = parseToJson, skip_typescript)]
pub fn parse_to_json(input: &JsValue, options: &JsValue) -> Result<Uint8Array> {
    let bytes = bytes_arg(input, "input")?;
    let o: ops::ParseOptions = options_arg(options)?;
    Ok(Uint8Array::from(&ops::parse_json(&bytes, &o)[..]))
}

/// The segments of the input as a lazy iterator of `Segment` views (the
/// core's tokenizer runs as the iterator advances; the views are plain JS
/// objects over one copy of the input in JS memory: see [`segments`]).
#[wasm_bindgen(skip_typescript)]
pub fn segments(input: &JsValue) -> Result<JsValue> {
    segments::segments(input)
}

/// Validates the envelopes (and with `structure`, the 18 known sets); the validation result object.
#[wasm_bindgen(skip_typescript)]
pub fn validate(input: &JsValue, options: &JsValue) -> Result<JsValue> {
    validation::forget_latest();
    let bytes = bytes_arg(input, "input")?;
    let o: ops::ValidateOptions = options_arg(options)?;
    let v = std::rc::Rc::new(ops::validate(&bytes, &o));
    drop(bytes);
    validation::result(v, validation::Source::Input(input, options))
}

/// Like `validate`, as UTF-8 JSON bytes (identical to `x12kit validate --json`).
#[wasm_bindgen(js_name = validateToJson, skip_typescript)]
pub fn validate_to_json(input: &JsValue, options: &JsValue) -> Result<Uint8Array> {
    let bytes = bytes_arg(input, "input")?;
    let o: ops::ValidateOptions = options_arg(options)?;
    Ok(Uint8Array::from(&ops::validate_json(&bytes, &o)[..]))
}

/// The TA1 / 997 / 999 acknowledging a validation result of `validate` or
/// `StreamValidator.finish` (see the `validation` module), or the X12 input, as X12
/// bytes (empty when nothing is to be acknowledged). `options.now` (a `Date`
/// or Unix seconds) defaults to `Date.now()`.
#[wasm_bindgen(skip_typescript)]
pub fn acknowledge(validation_or_input: &JsValue, options: &JsValue) -> Result<Uint8Array> {
    validation::acknowledge(validation_or_input, options)
}

/// Reads received TA1 / 997 / 999 acknowledgements: a plain object.
#[wasm_bindgen(js_name = readAcknowledgement, skip_typescript)]
pub fn read_acknowledgement(input: &JsValue) -> Result<JsValue> {
    let bytes = bytes_arg(input, "input")?;
    json_bytes_to_js(&ops::read_acknowledgement_json(&bytes))
}

/// Like `readAcknowledgement`, as UTF-8 JSON bytes.
#[wasm_bindgen(js_name = readAcknowledgementToJson, skip_typescript)]
pub fn read_acknowledgement_to_json(input: &JsValue) -> Result<Uint8Array> {
    let bytes = bytes_arg(input, "input")?;
    Ok(Uint8Array::from(
        &ops::read_acknowledgement_json(&bytes)[..],
    ))
}

/// Renders a payload for a trading partner: the interchange X12 bytes.
/// `payload` and `partner` are objects, JSON text or its UTF-8 bytes; `options.now` (a `Date`
/// or Unix seconds) defaults to `Date.now()`.
#[wasm_bindgen(skip_typescript)]
pub fn render(
    document_type: &JsValue,
    payload: &JsValue,
    partner: &JsValue,
    options: &JsValue,
) -> Result<Uint8Array> {
    let r = rendered(document_type, payload, partner, options)?;
    Ok(Uint8Array::from(&r.x12[..]))
}

/// Like `render`: `{x12, document, warnings}` (the document as it maps back, and the warnings).
#[wasm_bindgen(js_name = renderResult, skip_typescript)]
pub fn render_result(
    document_type: &JsValue,
    payload: &JsValue,
    partner: &JsValue,
    options: &JsValue,
) -> Result<JsValue> {
    let r = rendered(document_type, payload, partner, options)?;
    let out = js_sys::Object::new();
    convert::set(&out, "x12", &Uint8Array::from(&r.x12[..]))?;
    convert::set(&out, "document", &convert::serde_to_js(&r.document)?)?;
    convert::set(&out, "warnings", &convert::serde_to_js(&r.warnings)?)?;
    Ok(out.into())
}

fn rendered(
    document_type: &JsValue,
    payload: &JsValue,
    partner: &JsValue,
    options: &JsValue,
) -> Result<x12kit::render::Rendered> {
    let kind = string_arg(document_type, "documentType")?;
    let payload = json_text_arg(payload, "payload")?;
    let partner = json_text_arg(partner, "partner")?;
    let (o, now): (ops::RenderOptions, _) = options_and_now(options)?;
    ops::render_str(&kind, &payload, &partner, &o, DateTime::from_unix(now)).map_err(to_js)
}

/// The JSON Schema of a document type's payload (`850`, ...); with a partner
/// profile (object, JSON text or bytes), narrowed for it.
#[wasm_bindgen(js_name = documentSchema, skip_typescript)]
pub fn document_schema(document_type: &JsValue, partner: &JsValue) -> Result<JsValue> {
    let kind = string_arg(document_type, "documentType")?;
    let schema = if partner.is_undefined() || partner.is_null() {
        ops::document_schema(&kind)
    } else {
        let partner = json_text_arg(partner, "partner")?;
        ops::document_schema_for_partner_str(&kind, &partner)
    };
    convert::serde_to_js(&schema.map_err(to_js)?)
}

/// The JSON Schema of a trading partner profile.
#[wasm_bindgen(js_name = partnerSchema, skip_typescript)]
pub fn partner_schema() -> Result<JsValue> {
    convert::serde_to_js(&ops::partner_schema())
}

/// CSV intake: the documents of a type a CSV holds and every problem at its row,
/// column and pointer (`ops::payloads_from_csv`), as a plain object.
#[wasm_bindgen(js_name = payloadsFromCsv, skip_typescript)]
pub fn payloads_from_csv(
    document_type: &JsValue,
    csv: &JsValue,
    options: &JsValue,
) -> Result<JsValue> {
    // The core's JSON read by the engine's JSON.parse: one serializer of the result in
    // the module (the `ToJson` form's), not a second one to JS values.
    let json = payloads_from_csv_to_json(document_type, csv, options)?;
    let text = String::from_utf8(json.to_vec())
        .map_err(|_| to_js(x12kit::Error::internal("the CSV result is not UTF-8")))?;
    js_sys::JSON::parse(&text)
        .map_err(|_| to_js(x12kit::Error::internal("the CSV result is not JSON")))
}

/// Like `payloadsFromCsv`, as UTF-8 JSON bytes (byte-identical to the core).
#[wasm_bindgen(js_name = payloadsFromCsvToJson, skip_typescript)]
pub fn payloads_from_csv_to_json(
    document_type: &JsValue,
    csv: &JsValue,
    options: &JsValue,
) -> Result<Uint8Array> {
    let kind = string_arg(document_type, "documentType")?;
    let bytes = bytes_arg(csv, "csv")?;
    let o: ops::CsvOptions = options_arg(options)?;
    let json = ops::payloads_from_csv_json(&kind, &bytes, &o).map_err(to_js)?;
    Ok(Uint8Array::from(&json[..]))
}

/// The transaction sets of a file of any size, one at a time: an async
/// iterator reading a `Blob`/`File`, a `ReadableStream` or an (async)
/// iterable of chunks as it goes (the `sets` module).
#[wasm_bindgen(skip_typescript)]
pub fn transactions(source: &JsValue, options: &JsValue) -> Result<JsValue> {
    sets::transactions(source, options)
}

/// The parts of `split` read from a `Blob`/`File`, a `ReadableStream` or
/// an (async) iterable of chunks, as an async iterator (the `sets` module).
#[wasm_bindgen(js_name = splitStream, skip_typescript)]
pub fn split_stream(source: &JsValue, options: &JsValue) -> Result<JsValue> {
    sets::split_stream(source, options)
}

/// A part of `splitStream` made again from its `recipe` and the input's
/// bytes in the recipe's ranges (the `sets` module).
#[wasm_bindgen(js_name = rebuildPart, skip_typescript)]
pub fn rebuild_part(recipe: &JsValue, bytes: &JsValue) -> Result<JsValue> {
    sets::rebuild_part(recipe, bytes)
}

/// Splits X12 into complete interchanges (`ops::split`), as a plain object.
#[wasm_bindgen(js_name = split, skip_typescript)]
pub fn split(input: &JsValue, options: &JsValue) -> Result<JsValue> {
    let json = split_to_json(input, options)?;
    let text = String::from_utf8(json.to_vec())
        .map_err(|_| to_js(x12kit::Error::internal("the split result is not UTF-8")))?;
    js_sys::JSON::parse(&text)
        .map_err(|_| to_js(x12kit::Error::internal("the split result is not JSON")))
}

/// Like `split`, as UTF-8 JSON bytes (byte-identical to the core).
#[wasm_bindgen(js_name = splitToJson, skip_typescript)]
pub fn split_to_json(input: &JsValue, options: &JsValue) -> Result<Uint8Array> {
    let bytes = bytes_arg(input, "input")?;
    let o: ops::SplitOptions = options_arg(options)?;
    let json = ops::split_json(&bytes, &o).map_err(to_js)?;
    Ok(Uint8Array::from(&json[..]))
}

/// Merges interchanges of one sender/receiver pair into one (`ops::merge`).
#[wasm_bindgen(js_name = merge, skip_typescript)]
pub fn merge(inputs: &JsValue, options: &JsValue) -> Result<Uint8Array> {
    let Some(list) = inputs.dyn_ref::<js_sys::Array>() else {
        return Err(error::argument(
            "inputs must be an array of Uint8Arrays, ArrayBuffers or strings".to_string(),
        ));
    };
    let mut owned = Vec::with_capacity(list.length() as usize);
    for (k, v) in list.iter().enumerate() {
        owned.push(bytes_arg(&v, &format!("inputs[{k}]"))?);
    }
    let o: ops::MergeOptions = options_arg(options)?;
    let slices: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
    let out = ops::merge(&slices, &o).map_err(to_js)?;
    Ok(Uint8Array::from(&out[..]))
}

/// The 18 document types x12kit renders and maps (`["204", ...]`).
#[wasm_bindgen(js_name = documentTypes, skip_typescript)]
pub fn document_types() -> js_sys::Array {
    ops::DOCUMENT_TYPES
        .iter()
        .map(|t| JsValue::from_str(t))
        .collect()
}

/// Turns a parse result (object, JSON text or its UTF-8 bytes) back into X12 bytes.
#[wasm_bindgen(skip_typescript)]
pub fn write(parse_result: &JsValue, options: &JsValue) -> Result<Uint8Array> {
    let text = json_text_arg(parse_result, "parseResult")?;
    let o: ops::WriteOptions = options_arg(options)?;
    let x12 = ops::write_str(&text, &o).map_err(to_js)?;
    Ok(Uint8Array::from(&x12[..]))
}

/// Webhook signatures (HMAC-SHA256 over `timestamp.body`): `webhook.sign`, `webhook.verify`.
#[wasm_bindgen(js_name = webhook, skip_typescript)]
#[derive(Debug)]
pub struct Webhook;

#[wasm_bindgen(js_class = webhook)]
impl Webhook {
    /// The signature header value (`sha256=<hex>`) of `body` sent at `timestamp` (Unix seconds).
    #[wasm_bindgen(skip_typescript)]
    pub fn sign(secret: &JsValue, timestamp: &JsValue, body: &JsValue) -> Result<String> {
        let secret = bytes_arg(secret, "secret")?;
        let ts = convert::u64_arg(timestamp, "timestamp")?;
        let body = bytes_arg(body, "body")?;
        ops::webhook_sign(&secret, ts, &body).map_err(to_js)
    }

    /// Checks a delivery against one or more secrets: `{timestamp, secretIndex}`
    /// or an error. `options`: `{tolerance, now}`; `now` (a `Date` or Unix
    /// seconds) defaults to `Date.now()`.
    #[wasm_bindgen(skip_typescript)]
    pub fn verify(
        secrets: &JsValue,
        signature: &JsValue,
        timestamp: &JsValue,
        body: &JsValue,
        options: &JsValue,
    ) -> Result<JsValue> {
        let secrets = convert::secrets_arg(secrets)?;
        let signature = string_arg(signature, "signature")?;
        let timestamp = match timestamp.as_f64() {
            Some(n) => convert::u64_arg(&n.into(), "timestamp")?.to_string(),
            None => string_arg(timestamp, "timestamp")?,
        };
        let body = bytes_arg(body, "body")?;
        let (o, now): (ops::VerifyOptions, _) = options_and_now(options)?;
        let v =
            ops::webhook_verify(&secrets, &signature, &timestamp, &body, &o, now).map_err(to_js)?;
        convert::serde_to_js(&v)
    }
}

/// Validates input fed in chunks of any size (`File.stream()`, `fetch` bodies),
/// with memory bounded by the longest segment rather than the input.
#[wasm_bindgen(skip_typescript)]
#[derive(Debug)]
pub struct StreamValidator {
    inner: Option<x12kit::StreamValidator>,
    result: Option<std::rc::Rc<x12kit::Validation>>,
    fed: u64,
}

#[wasm_bindgen]
impl StreamValidator {
    /// A validator waiting for its first chunk.
    #[wasm_bindgen(constructor)]
    pub fn new(options: &JsValue) -> Result<StreamValidator> {
        let o: ops::ValidateOptions = options_arg(options)?;
        Ok(StreamValidator {
            inner: Some(ops::stream_validator(&o)),
            result: None,
            fed: 0,
        })
    }

    /// Feeds the next chunk.
    pub fn feed(&mut self, chunk: &JsValue) -> Result<()> {
        let bytes = bytes_arg(chunk, "chunk")?;
        let v = self.inner.as_mut().ok_or_else(error::finished)?;
        v.feed(&bytes);
        self.fed += bytes.len() as u64;
        Ok(())
    }

    /// Bytes fed so far.
    #[wasm_bindgen(getter)]
    pub fn fed(&self) -> f64 {
        self.fed as f64
    }

    /// Ends the input: the validation result object (the same as `validate` on the whole input).
    pub fn finish(&mut self) -> Result<JsValue> {
        validation::result(
            self.finish_validation()?.clone(),
            validation::Source::Stream,
        )
    }

    /// Like `finish`, as UTF-8 JSON bytes.
    #[wasm_bindgen(js_name = finishToJson)]
    pub fn finish_to_json(&mut self) -> Result<Uint8Array> {
        Ok(Uint8Array::from(&self.finish_validation()?.to_json()[..]))
    }

    /// After `finish`: the TA1 / 997 / 999 for what was validated (the whole
    /// input is not needed again). `options.now` defaults to `Date.now()`.
    pub fn acknowledge(&self, options: &JsValue) -> Result<Uint8Array> {
        let (o, now): (ops::AcknowledgeOptions, _) = options_and_now(options)?;
        let v = self.result.as_ref().ok_or_else(|| {
            error::argument("acknowledge needs the validation: call finish() first")
        })?;
        let ack = ops::acknowledge_validation(v, &o, DateTime::from_unix(now)).map_err(to_js)?;
        Ok(Uint8Array::from(&ack[..]))
    }
}

impl StreamValidator {
    fn finish_validation(&mut self) -> Result<&std::rc::Rc<x12kit::Validation>> {
        let v = self.inner.take().ok_or_else(error::finished)?;
        Ok(self.result.insert(std::rc::Rc::new(v.finish())))
    }
}

/// Every error code of the core: `[{code, kind, meaning}]`.
#[wasm_bindgen(js_name = errorCodes, skip_typescript)]
pub fn error_codes() -> Result<JsValue> {
    let all: Vec<serde_json::Value> = x12kit::error::ErrorCode::ALL
        .iter()
        .map(|c| serde_json::json!({"code": c.as_str(), "kind": c.kind().as_str(), "meaning": c.meaning()}))
        .collect();
    convert::serde_to_js(&all)
}

/// The JS error this package throws for a core error code (to test the mapping of every code).
#[wasm_bindgen(js_name = errorForCode, skip_typescript)]
pub fn error_for_code(code: &str) -> Result<JsValue> {
    let c = x12kit::error::ErrorCode::from_name(code)
        .ok_or_else(|| error::argument(format!("{code:?} is not an x12kit error code")))?;
    Ok(to_js(x12kit::Error::new(
        c,
        format!("an example {code} error"),
    )))
}

/// What the core knows of a segment: its name, and each element's data
/// element number, name and code meanings (the core's declarations and X12
/// dictionary); envelope and acknowledgment segments for any set.
#[wasm_bindgen(js_name = describeSegment, skip_typescript)]
pub fn describe_segment(
    set_type: &JsValue,
    version: &JsValue,
    segment: &JsValue,
) -> Result<JsValue> {
    let set_type = string_arg(set_type, "setType")?;
    let version = string_arg(version, "version")?;
    let seg = string_arg(segment, "segment")?;
    inspect::describe(&set_type, &version, &seg)
}

#[wasm_bindgen(typescript_custom_section)]
const TS_FUNCTIONS: &'static str = r#"
/** Options of `transactions` (all optional). */
export interface TransactionsOptions extends ParseOptions {
  /** Receives every diagnostic of the input (the envelope's included) once the iteration ends. */
  onDiagnostics?: (diagnostics: Diagnostic[]) => void;
}
/** One transaction set of `transactions`, with the envelope headers around it (the Node addon's `SetItem`). */
export interface SetItem {
  /** The interchange's ISA fields (the parse result's interchange `header`). */
  interchange: Record<string, string>;
  /** The group's GS fields, or null for a set outside any group. */
  group: Record<string, string> | null;
  /** The parse result's set object: `type`, `controlNumber`, `segments`, `document`, `trailer`. */
  transaction: Transaction;
  /** The diagnostics at the set's segments (ST through SE). */
  diagnostics: Diagnostic[];
}
/**
 * The transaction sets of a file of any size, one at a time, read as the
 * iteration goes: `source` is a `Blob` or `File` (read through `.stream()`),
 * a `ReadableStream` of bytes (or text), an (async) iterable of chunks, or the
 * X12 itself. Nothing holds the input: the memory follows the largest set and
 * the largest chunk. `for await (const set of transactions(file))`; `break`
 * cancels the stream.
 */
export function transactions(
  source: Blob | ReadableStream<Uint8Array | string> | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string> | X12Input,
  options?: TransactionsOptions,
): TransactionStream;
/** Options of `splitStream`: those of `split`, and `onDiagnostics`. */
export interface SplitStreamOptions extends SplitOptions {
  /** Receives every diagnostic of reading the input once the iteration ends. */
  onDiagnostics?: (diagnostics: Diagnostic[]) => void;
}
/** A part of `splitStream`: a part of `split` (its `recipe` included) with its bytes instead of its text (`x12`). */
export interface StreamedPart extends Omit<Part, "x12"> {
  /** The part's X12 bytes (exact where the input is not UTF-8), e.g. for `new Blob([part.bytes])`. */
  bytes: Uint8Array;
}
/**
 * What `rebuildPart` needs to make a part of `split` or `splitStream` again: a few dozen
 * bytes whatever the part's size. Read `ranges` of the input (`[start, end)`
 * byte offsets: its ISA, its GS, the run of its sets, the GE or IEA that
 * closed it) one after the other and pass them with it.
 */
export interface PartRecipe {
  ranges: Array<[number, number]>;
  /** Which of `ranges` is the run of sets. */
  setsRange: number;
  /** The part's number of sets. */
  sets: number;
  /** The input's segment index of its first ST. */
  segment: number;
  /** The numbers of its interchange, group and first set, for the levels the split renumbered. */
  renumber: { interchange?: number; group?: number; set?: number };
  maxSetBytes: number;
}
/**
 * A part of `splitStream` made again from its `recipe` and `bytes`, the
 * input's bytes in `recipe.ranges` one after the other, e.g.
 * `new Uint8Array(await new Blob(recipe.ranges.map(([a, b]) => file.slice(a, b))).arrayBuffer())`:
 * the same part (bytes, numbers, positions) without reading the rest of the
 * file. `INVALID_ARGUMENT` when the bytes do not make that part (another
 * file, or it changed since the split); `INVALID_OPTIONS` (pointer `/recipe`
 * or under it) or `INVALID_CONTROL_NUMBER` for an unusable recipe.
 */
export function rebuildPart(recipe: PartRecipe, bytes: X12Input): StreamedPart;
/**
 * `split` over a stream: the parts of a file of any size (a `Blob` or `File`,
 * a `ReadableStream`, an (async) iterable of chunks, or the X12 itself), each
 * as soon as it is complete, holding one part and one set, never the file.
 * The parts are `split`'s (sets, numbers, positions); a part cut by `maxSets`
 * or `maxBytes` before its group's GE (or its interchange's IEA) has been read
 * ends with a GE and an IEA built like its GS and ISA, where `split` copies the
 * input's own: the same bytes whenever the input's trailers are written like its
 * headers.
 */
export function splitStream(
  source: Blob | ReadableStream<Uint8Array | string> | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string> | X12Input,
  options?: SplitStreamOptions,
): PartStream;
/** What `splitStream` returns: an async iterator of parts (the same class as `TransactionStream`). */
export interface PartStream extends AsyncIterableIterator<StreamedPart> {
  free(): void;
  next(): Promise<IteratorResult<StreamedPart, undefined>>;
  return(value?: unknown): Promise<IteratorResult<StreamedPart, undefined>>;
  [Symbol.asyncIterator](): PartStream;
  /** Bytes of the input read so far (for progress). */
  readonly bytesRead: number;
  /** Parts handed over so far. */
  readonly setsRead: number;
  /** Every diagnostic of reading the input once the iteration has ended (`null` before). */
  readonly diagnostics: Diagnostic[] | null;
}
/** What `transactions` returns: an async iterator of `SetItem`s. */
export class TransactionStream implements AsyncIterableIterator<SetItem> {
  private constructor();
  free(): void;
  next(): Promise<IteratorResult<SetItem, undefined>>;
  /** Stops reading: cancels the stream and frees what the iterator holds (`break` calls it). */
  return(value?: unknown): Promise<IteratorResult<SetItem, undefined>>;
  [Symbol.asyncIterator](): TransactionStream;
  /** Bytes of the input read so far (for progress). */
  readonly bytesRead: number;
  /** Sets handed over so far (parts, for `splitStream`). */
  readonly setsRead: number;
  /** Every diagnostic of the input once the iteration has ended (`null` before). */
  readonly diagnostics: Diagnostic[] | null;
}
/** Parses X12; the parse result (the JSON contract, as `x12kit parse` prints it) as a plain object. */
export function parse(input: X12Input, options?: ParseOptions): ParseResult;
/** Parses X12; the parse result as UTF-8 JSON bytes (byte-identical to the core). */
export function parseToJson(input: X12Input, options?: ParseOptions): Uint8Array;
/** The segments of the input, lazily: the core's tokenizer finds each one as the iterator advances. */
export function segments(input: X12Input): SegmentIterator;
/**
 * What `segments` returns: an iterator (and iterable) of `Segment` views. It
 * frees its wasm memory when it is done or stopped (`return()`, which
 * `for…of` calls on `break`); `free()` does it at once.
 */
export class SegmentIterator implements IterableIterator<Segment> {
  private constructor();
  free(): void;
  next(): IteratorResult<Segment, undefined>;
  /** Stops the iteration early: frees what the iterator holds. */
  return(value?: unknown): IteratorResult<Segment, undefined>;
  [Symbol.iterator](): SegmentIterator;
  /** Consumes the remaining segments without making views; how many there were. */
  skipRest(): number;
}
/**
 * A lazy view of one segment, a plain object holding no wasm memory: its
 * text and elements are read from the (JS) copy of the input when asked for.
 */
export interface Segment {
  /** Does nothing (a view holds no wasm memory); kept for code written for earlier versions. */
  free(): void;
  /** The identifier (`ISA`, `BEG`, ...). */
  readonly id: string;
  /** The segment text, terminator excluded. */
  readonly raw: string;
  /** 0-based position of the segment in the input. */
  readonly index: number;
  /** Byte offset of the segment in the input. */
  readonly offset: number;
  /** Bytes of the segment in the input, terminator excluded. */
  readonly length: number;
  /** Element `n`, 1-based as in X12; undefined past the last element. */
  element(n: number): string | undefined;
  /** The elements after the identifier. */
  elements(): string[];
  /** The components of element `n` (one for a simple element). */
  components(n: number): string[];
  /** The repetitions of element `n`. */
  repetitions(n: number): string[];
  toJSON(): { id: string; index: number; offset: number; elements: string[] };
}
/** Validates the envelopes (and, with `structure`, the 18 known sets): the validation result. */
export function validate(input: X12Input, options?: ValidateOptions): ValidationResult;
/** Like `validate`, as UTF-8 JSON bytes (byte-identical to `x12kit validate --json`). */
export function validateToJson(input: X12Input, options?: ValidateOptions): Uint8Array;
/**
 * The TA1 / 997 / 999 (empty when nothing is to be acknowledged). Pass a result
 * of `validate` or `StreamValidator.finish` (not validated again), or the X12 input itself.
 */
export function acknowledge(validationOrInput: ValidationResult | X12Input, options?: AcknowledgeOptions): Uint8Array;
/** Reads received TA1 / 997 / 999 acknowledgements. */
export function readAcknowledgement(input: X12Input): Acknowledgements;
/** Like `readAcknowledgement`, as UTF-8 JSON bytes. */
export function readAcknowledgementToJson(input: X12Input): Uint8Array;
/** Renders a payload (object or JSON text) for a partner profile: the interchange X12. */
export function render(documentType: string, payload: object | string | Uint8Array, partner: object | string | Uint8Array, options?: RenderOptions): Uint8Array;
/** Like `render`, with the document as it maps back and the warnings. */
export function renderResult(documentType: string, payload: object | string | Uint8Array, partner: object | string | Uint8Array, options?: RenderOptions): Rendered;
/** The JSON Schema of a document type's payload; with `partner` (a profile), narrowed by its guide of the type and its required fields. */
export function documentSchema(documentType: string, partner?: object | string | Uint8Array): Record<string, unknown>;
/** The JSON Schema of a trading partner profile. */
export function partnerSchema(): Record<string, unknown>;
/**
 * CSV intake: the documents of `documentType` a CSV holds and every problem at its
 * row, column and pointer. The header row names JSON pointers into the payload
 * (`/purchaseOrderNumber`, `/shipTo/id`; a `*` step names the items of a list, one
 * item per row); consecutive rows with one document key are one document.
 */
export function payloadsFromCsv(documentType: string, csv: X12Input, options?: CsvOptions): CsvPayloads;
/** Like `payloadsFromCsv`, as UTF-8 JSON bytes (byte-identical to the core). */
export function payloadsFromCsvToJson(documentType: string, csv: X12Input, options?: CsvOptions): Uint8Array;
/** Options of `payloadsFromCsv` (the names every language uses). */
export interface CsvOptions {
  /** The field separator: `","` (default) or `";"`. */
  delimiter?: string | null;
  /** The header cell of the column whose value groups rows into documents (default: the first column). */
  documentKey?: string | null;
  /** Rows under the header read at most (default 10000). */
  maxRows?: number | null;
  /** A partner profile: its implementation guide's required fields are checked too. */
  partner?: Record<string, unknown> | null;
  /** Also answer the rows as read (`table`). */
  table?: boolean | null;
}
/** One document of a CSV. */
export interface CsvDocument {
  key: string;
  /** Its business reference (the type's reference field), or null. */
  reference: string | null;
  /** Its first and last rows (1-based; the header is row 1). */
  rows: [number, number];
  payload: Record<string, unknown>;
}
/** One problem of a CSV. */
export interface CsvProblem {
  /** 1-based; the header is row 1. */
  row: number;
  /** The header cell (or the pointer with `*` of a field the file has no column of; empty for a whole row). */
  column: string;
  /** JSON pointer into the document's payload (empty when none). */
  pointer: string;
  code: string;
  message: string;
}
/** What a CSV makes. */
export interface CsvPayloads {
  documentTypeCode: string;
  header: string[];
  documents: CsvDocument[];
  problems: CsvProblem[];
  /** With `table: true`: the rows under the header as read. */
  table?: string[][];
}
/**
 * Splits X12 into complete interchanges, each holding a set (`per: "set"`, the
 * default; up to `maxSets`) or a group (`per: "group"`), closed before a set would
 * take it past `maxBytes`: envelopes copied, GE01/IEA01 counted, control numbers kept
 * or renumbered from `renumber`; each part says where its sets were in the input. An
 * input with envelope errors is split as far as it can be, with the diagnostics.
 */
export function split(input: X12Input, options?: SplitOptions): SplitResult;
/** Like `split`, as UTF-8 JSON bytes (byte-identical to the core). */
export function splitToJson(input: X12Input, options?: SplitOptions): Uint8Array;
/**
 * Merges interchanges of one sender/receiver pair, version and delimiters into one
 * (groups with the same GS become one). Throws `MERGE_REFUSED` (`details` name each
 * input at fault: `/0`, `/1`).
 */
export function merge(inputs: X12Input[], options?: MergeOptions): Uint8Array;
/** Control numbers to renumber from; a level left out keeps the original numbers. */
export interface Renumber {
  /** ISA13/IEA02 of the first part (or of the merged interchange), 1–999999999. */
  interchange?: number | null;
  /** GS06/GE02 of the first group. */
  group?: number | null;
  /** ST02/SE02 of the first set (written with at least four digits). */
  set?: number | null;
}
/** Options of `split` (the names every language uses). */
export interface SplitOptions {
  /** What a part holds: `"set"` (default: one set, or up to `maxSets`) or `"group"`. */
  per?: "set" | "group" | null;
  /** At most this many sets a part (default: 1 per set, no limit per group). */
  maxSets?: number | null;
  /** A part is closed before a set would take it past this many bytes (a larger set alone makes a part). */
  maxBytes?: number | null;
  renumber?: Renumber | null;
  /** The cap on one transaction set, in bytes (0: none; default 64 MiB): a larger set is a `SET_TOO_LARGE` error and in no part. */
  maxSetBytes?: number | null;
}
/** Options of `merge`. */
export interface MergeOptions {
  /** With `group`, groups of one functional id and application ids merge whatever their GS06. */
  renumber?: Renumber | null;
}
/** Where a set of a part was in the input, and its numbers. */
export interface PartSet {
  /** ST01. */
  type: string;
  /** ST02 in the part. */
  controlNumber: string;
  /** ST02 in the input. */
  originalControlNumber: string;
  /** Index of its ST among the input's segments (0-based). */
  segment: number;
  /** Byte offset of its ST in the input. */
  offset: number;
  /** Its bytes in the input, ST through SE (and the line break after it). */
  length: number;
}
/** One part of a split: a complete interchange. */
export interface Part {
  interchangeControlNumber: string;
  originalInterchangeControlNumber: string;
  /** GS01 (`null` for sets outside any group). */
  functionalId: string | null;
  groupControlNumber: string | null;
  originalGroupControlNumber: string | null;
  sets: PartSet[];
  /** How to make the part again later from the input alone (`rebuildPart`): keep this, not the part. */
  recipe: PartRecipe;
  /** The part's X12. */
  x12: string;
}
/** The parts of an input and the diagnostics of reading it. */
export interface SplitResult {
  parts: Part[];
  diagnostics: Diagnostic[];
}
/** The 18 document types x12kit renders and maps. */
export function documentTypes(): string[];
/** Turns a parse result (object or JSON text) back into X12 bytes. */
export function write(parseResult: ParseResult | string | Uint8Array, options?: WriteOptions): Uint8Array;
/** Every error code of the core with its kind. */
export function errorCodes(): { code: string; kind: string; meaning: string }[];
/** The error this package throws for a code (tests the mapping of every code). */
export function errorForCode(code: string): Error & X12kitErrorFields;
/** One element of a described segment (the core's declaration and X12 dictionary). */
export interface ElementDescription {
  position: number;
  /** X12 data element number, e.g. `"353"`, `"I01"`, `"C030"`. */
  number: string | null;
  /** Its name in the X12 dictionary, e.g. `"Transaction Set Purpose Code"`. */
  name: string | null;
  /** `ID`, `AN`, `N0`…`N9`, `R`, `DT`, `TM`, or `composite`. */
  type: string;
  min: number | null;
  max: number | null;
  mandatory: boolean;
  /** The declaration's one-line description. */
  description: string | null;
  /** The payload field of a mapped element. */
  field: string | null;
  /** The allowed codes, when the declaration closes the list. */
  codes: string[] | null;
  /** The codes the declaration knows. */
  knownCodes: string[] | null;
  /** The codes x12kit knows for this element, with what each means. */
  meanings: { code: string; meaning: string }[];
}
/** What x12kit knows of a segment (`describeSegment`). */
export interface SegmentDescription {
  /** The set, when it is one of the 18 known sets. */
  set: string | null;
  setName: string | null;
  segment: string;
  /** The segment's name in the X12 dictionary, e.g. `"Beginning Segment for Purchase Order"`. */
  segmentName: string | null;
  /** Use in the set's structure; `null` for envelope and acknowledgment segments. */
  mandatory: boolean | null;
  /** `null`: unbounded, or an envelope or acknowledgment segment. */
  maxUse: number | null;
  elements: ElementDescription[];
}
/**
 * What x12kit knows of a segment of one of the 18 sets (its declaration and
 * the X12 dictionary it uses), or of an envelope or acknowledgment segment
 * (ISA, IEA, GS, GE, ST, SE, TA1, AK1–AK9, IK3–IK5, CTX) for any set or
 * none (`setType` `""`). `version`: GS08 (`004010`, `005010X222A1`), ISA12
 * (`00401`, `00501`) or `""` for the base edition. `null` when the segment is
 * neither. Throws an `X12kitTypeError` (`INVALID_ARGUMENT`) when `segment`
 * is not a segment identifier (2 or 3 upper-case letters or digits) or
 * `version` not a version.
 */
export function describeSegment(setType: string, version: string, segment: string): SegmentDescription | null;
/** Webhook signatures (HMAC-SHA256 over `timestamp.body`). */
export class webhook {
  private constructor();
  free(): void;
  /** The signature header value (`sha256=<hex>`). */
  static sign(secret: string | Uint8Array, timestamp: number, body: string | Uint8Array): string;
  /** Checks a delivery; `{timestamp, secretIndex}`, or throws. */
  static verify(secrets: string | Uint8Array | (string | Uint8Array)[], signature: string, timestamp: string | number, body: string | Uint8Array, options?: VerifyOptions): { timestamp: number; secretIndex: number };
}
/** Validates input fed in chunks of any size, with bounded memory. */
export class StreamValidator {
  constructor(options?: ValidateOptions);
  free(): void;
  /** Feeds the next chunk. */
  feed(chunk: X12Input): void;
  /** Bytes fed so far. */
  readonly fed: number;
  /** Ends the input: the validation result (as `validate` gives for the whole input). */
  finish(): ValidationResult;
  /** Like `finish`, as UTF-8 JSON bytes. */
  finishToJson(): Uint8Array;
  /** After `finish`: the TA1 / 997 / 999 for what was validated. */
  acknowledge(options?: AcknowledgeOptions): Uint8Array;
}
"#;
