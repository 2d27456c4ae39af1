// Compiled by tests/node.test.mjs with `tsc --noEmit --strict`: the committed
// declarations (types/node.d.ts = pkg/node) type the results as the Node
// addon's index.d.ts does. Each @ts-expect-error line must be an error, so a
// result typed `any` again fails the compilation ("Unused '@ts-expect-error'").
import {
  parse, validate, acknowledge, readAcknowledgement, write, StreamValidator, documentSchema, errorForCode,
  transactions, splitStream, rebuildPart, type TransactionStream, type SetItem, type StreamedPart, type PartRecipe,
  type ParseResult, type ValidationResult, type Diagnostic, type Acknowledgements, type X12kitErrorFields,
} from '../../pkg/node/x12kit_wasm.js';

const input: Uint8Array = new TextEncoder().encode('ISA*00~');
const p: ParseResult = parse(input, { documents: false });
const ids: string[] = p.interchanges.flatMap((i) => i.groups.flatMap((g) => g.transactions.map((t) => t.segments[0].id)));
const d: Diagnostic | undefined = p.diagnostics[0];
const v: ValidationResult = validate('ISA*00~', { structure: true });
const counts: number = v.errorCount + v.warningCount + v.diagnostics.length;
const ack: Uint8Array = acknowledge(v, { kind: '997', now: new Date() });
const ack2: Uint8Array = acknowledge(input.buffer as ArrayBuffer, { now: 1700000000 });
const s = new StreamValidator({ structure: true });
s.feed(input);
const finished: ValidationResult = s.finish();
const acks: Acknowledgements = readAcknowledgement(ack);
const back: Uint8Array = write(p);
const schema: Record<string, unknown> = documentSchema('850');
const e: Error & X12kitErrorFields = errorForCode('INTERNAL');

// @ts-expect-error: `valid` is a boolean
const notAString: string = validate(input).valid;
// @ts-expect-error: a parse result has no typed `valid` (only the index signature's unknown)
const noValid: boolean = parse(input).valid;
// @ts-expect-error: the interchanges of a parse result are objects
const notNumbers: number[] = parse(input).interchanges;
// @ts-expect-error: finish() gives a validation result
const finishedIsTyped: string = new StreamValidator().finish().errorCount;
// @ts-expect-error: acknowledge takes a validation result or X12 input, not any object
acknowledge({ hello: 'world' });
// @ts-expect-error: the panic trigger is internal, not in the declarations
import('../../pkg/node/x12kit_wasm.js').then((m) => m.__panicForTests('x'));

// Files of any size: the sets and the parts of a Blob, as async iterators.
async function streams(file: Blob) {
  const sets: TransactionStream = transactions(file, { documents: false, onDiagnostics: (all: Diagnostic[]) => all.length });
  for await (const s of sets) {
    const item: SetItem = s;
    const segments: number = item.transaction.segments.length;
    const group: Record<string, string> | null = item.group;
    segments + (group ? 1 : 0);
  }
  const progress: number = sets.bytesRead + sets.setsRead;
  const all: Diagnostic[] | null = sets.diagnostics;
  for await (const p of splitStream(file, { maxSets: 1000 })) {
    const part: StreamedPart = p;
    const bytes: Uint8Array = part.bytes;
    const n: number = part.sets.length;
    // @ts-expect-error: a streamed part has its bytes, not its text
    const text: string = part.x12;
    bytes.length + n + text.length;
    // Kept instead of the part; the part made again from the ranges of the file.
    const recipe: PartRecipe = part.recipe;
    const ranges = recipe.ranges.map(([a, b]) => file.slice(a, b));
    const again: StreamedPart = rebuildPart(recipe, new Uint8Array(await new Blob(ranges).arrayBuffer()));
    again.bytes.length;
    // @ts-expect-error: the recipe is an object, not the part's bytes
    rebuildPart(part.bytes, part.bytes);
  }
  // @ts-expect-error: the source is a Blob, a stream, chunks or X12, not a number
  transactions(5);
  return [progress, all];
}

export const used = [ids, d, counts, ack, ack2, finished, acks, back, schema, e, notAString, noValid, notNumbers, finishedIsTyped, streams];
