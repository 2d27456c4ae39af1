/* tslint:disable */
/* eslint-disable */

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



declare function __wbg_reset_state(): void;
