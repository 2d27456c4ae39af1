// The page's Web Worker: every x12kit call on the input runs here, so the page
// stays responsive. A file is read in chunks (File.stream()) and fed to the
// StreamValidator with progress; a file up to FULL_LIMIT bytes is also kept
// whole for the parse result, the segments and the exact validation.
import init, * as x12 from './pkg/web/x12kit_wasm.js';
import { rawSegments } from './inspector.js';

const FULL_LIMIT = 32 * 1024 * 1024; // whole-input views up to this size
const RAW_SEGMENTS = 5000; // segments shown in the raw view
const ready = init({ module_or_path: new URL('./pkg/web/x12kit_wasm_bg.wasm', import.meta.url) });
const dec = new TextDecoder();

let last = null; // {bytes | stream validator, structure, guides} of the last input, for new acknowledgements

function errorInfo(e) {
  return { message: String(e && e.message || e), code: e && e.code, kind: e && e.kind };
}

/** The options of a validation: the partners' guides (parsed JSON) imply the structure checks. */
function validateOptions(structure, guides) {
  return guides && guides.length ? { structure: true, guides } : { structure };
}

async function analyze({ file, bytes, name, structure, ackKind, guides }) {
  await ready;
  const size = file ? file.size : bytes.length;
  const full = size <= FULL_LIMIT;
  const progress = (done) => postMessage({ type: 'progress', done, total: size });
  const options = validateOptions(structure, guides);
  const sv = new x12.StreamValidator(options);
  const kept = [];
  let head = null; // the first chunk: the raw view of a file too big to keep
  let done = 0;
  const take = (chunk) => {
    sv.feed(chunk);
    if (full) kept.push(chunk);
    else if (!head) head = chunk.slice(0, 1 << 20);
    done += chunk.length;
    progress(done);
  };
  if (file) {
    const reader = file.stream().getReader();
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) break;
      take(value);
    }
  } else {
    for (let off = 0; off < bytes.length; off += 1 << 20) take(bytes.subarray(off, off + (1 << 20)));
  }
  let validation = sv.finish();
  let input = null;
  if (full) {
    input = new Uint8Array(done);
    let off = 0;
    for (const c of kept) {
      input.set(c, off);
      off += c.length;
    }
    // The whole-input validation also reads acknowledgements and reports UTF-8 problems.
    validation = x12.validate(input, options);
  }
  if (last && last.sv) last.sv.free();
  last = full ? { input, options } : { sv, options };
  const result = {
    type: 'result', name, size, full, validation,
    ack: ackFor(ackKind),
    ...rawSegments(x12, full ? input : head, RAW_SEGMENTS),
  };
  if (full) {
    result.parseJson = dec.decode(x12.parseToJson(input));
    sv.free();
  }
  postMessage(result);
}

function ackFor(kind) {
  try {
    const bytes = last.input
      ? x12.acknowledge(last.input, { kind, ...last.options })
      : last.sv.acknowledge({ kind });
    return { text: dec.decode(bytes) };
  } catch (e) {
    return { error: errorInfo(e) };
  }
}

/** The set-by-set reading of `file` under way (`stop` ends it). */
let reading = null;

/**
 * Reads a file of any size a transaction set at a time (`transactions`):
 * nothing holds the file; the page gets progress with the counts so far
 * every 100 ms, then the summary: sets by type, diagnostics by code.
 */
async function readSets({ file, id }) {
  await ready;
  const it = x12.transactions(file, { documents: false });
  const me = { it, stopped: false };
  reading = me;
  const types = new Map(); // type -> [sets, with errors]
  let sets = 0;
  let lastPost = 0;
  const progress = () => postMessage({
    type: 'sets-progress', id, done: it.bytesRead, total: file.size, sets, types: [...types],
  });
  try {
    for await (const s of it) {
      sets++;
      const t = types.get(s.transaction.type) || [0, 0];
      t[0]++;
      if (s.diagnostics.some((d) => d.severity === 'error')) t[1]++;
      types.set(s.transaction.type, t);
      const now = performance.now();
      if (now - lastPost > 100) {
        lastPost = now;
        progress();
      }
      if (me.stopped) break;
    }
  } finally {
    if (reading === me) reading = null;
  }
  progress();
  // Every diagnostic of the input (the envelope's too), by code.
  const codes = new Map();
  for (const d of it.diagnostics || []) {
    const c = codes.get(d.code) || { code: d.code, severity: d.severity, count: 0, first: d };
    c.count++;
    codes.set(d.code, c);
  }
  postMessage({
    type: 'sets-result', id, name: file.name, size: file.size, read: it.bytesRead, sets,
    stopped: me.stopped, types: [...types], codes: [...codes.values()],
  });
  it.free();
}

/**
 * The last split: its file (a handle, not its bytes) and, for each part,
 * what the page lists (name, sets, size) with its recipe (the byte ranges of
 * the file it is made of, a few dozen bytes), so that any part can be made
 * again when it is asked for (`rebuildPart`) without holding any.
 */
let split = null;

/** The name of a part's file: the input's name and the part's control numbers. */
function partName(file, p) {
  return `${file.name.replace(/\.[^.]*$/, '')}-${p.interchangeControlNumber}-${p.groupControlNumber ?? 'nogroup'}-${p.sets[0].controlNumber}.x12`;
}

/**
 * Splits a file of any size into complete interchanges of `maxSets` sets
 * (`splitStream`), reading it in chunks, keeping each part's recipe, not
 * its bytes; progress (with the number of parts) every 100 ms.
 */
async function splitFile({ file, id, maxSets }) {
  await ready;
  const it = x12.splitStream(file, { maxSets });
  const me = { it, stopped: false };
  reading = me;
  split = { id, file, parts: [] };
  const parts = split.parts;
  let sets = 0;
  let lastPost = 0;
  const progress = () => postMessage({ type: 'sets-progress', id, done: it.bytesRead, total: file.size, sets, parts: parts.length, types: [] });
  try {
    for await (const p of it) {
      sets += p.sets.length;
      parts.push({ name: partName(file, p), sets: p.sets.length, size: p.bytes.length, recipe: p.recipe });
      const now = performance.now();
      if (now - lastPost > 100) {
        lastPost = now;
        progress();
      }
      if (me.stopped) break;
    }
  } finally {
    if (reading === me) reading = null;
  }
  const d = it.diagnostics || [];
  postMessage({
    type: 'split-result', id, name: file.name, read: it.bytesRead, parts: parts.length, sets,
    stopped: me.stopped, errors: d.filter((x) => x.severity === 'error').length, warnings: d.filter((x) => x.severity === 'warning').length,
  });
  it.free();
}

/** Parts `from` to `from + count - 1` (0-based) of the split `id`, for the page's list. */
function splitList({ id, from, count }) {
  if (!split || split.id !== id) return;
  const list = split.parts.slice(from, from + count).map((p, k) => ({ n: from + k + 1, name: p.name, sets: p.sets, size: p.size }));
  postMessage({ type: 'split-list', id, from, total: split.parts.length, list });
}

/** Part `n` (1-based) of the split `id`, made again from its recipe and the file's bytes in its ranges. */
async function splitPart({ id, n }) {
  await ready;
  const p = split && split.id === id ? split.parts[n - 1] : null;
  if (!p) throw Object.assign(new Error(`no part ${n} of this split`), { code: 'INVALID_ARGUMENT' });
  const ranges = p.recipe.ranges.map(([a, b]) => split.file.slice(a, b));
  const bytes = new Uint8Array(await new Blob(ranges).arrayBuffer());
  const part = x12.rebuildPart(p.recipe, bytes);
  postMessage({ type: 'split-file', id, n, name: p.name, blob: new Blob([part.bytes], { type: 'application/edi-x12' }) });
}

onmessage = async (ev) => {
  const m = ev.data;
  try {
    if (m.type === 'analyze') await analyze(m);
    else if (m.type === 'sets') await readSets(m).catch((e) => postMessage({ type: 'sets-error', id: m.id, error: errorInfo(e) }));
    else if (m.type === 'split') await splitFile(m).catch((e) => postMessage({ type: 'sets-error', id: m.id, error: errorInfo(e) }));
    else if (m.type === 'split-list') splitList(m);
    else if (m.type === 'split-part') await splitPart(m).catch((e) => postMessage({ type: 'split-part-error', id: m.id, n: m.n, error: errorInfo(e) }));
    else if (m.type === 'sets-stop') {
      if (reading) reading.stopped = true;
    }
    else if (m.type === 'ack') postMessage({ type: 'ack', ack: ackFor(m.kind) });
    else if (m.type === 'guides') {
      // The core checks the guides (against their sets' declarations) when it
      // reads the options: INVALID_GUIDE lists every problem at its pointer.
      await ready;
      let error = null;
      try {
        x12.validate(new Uint8Array(0), validateOptions(true, m.guides));
      } catch (e) {
        error = { ...errorInfo(e), details: (e && e.details) || [] };
      }
      postMessage({ type: 'guides', id: m.id, error });
    }
    else if (m.type === 'describe') {
      await ready;
      // A segment id or version that is not one (a defective file) is
      // INVALID_ARGUMENT: the inspector shows why instead of a description.
      let info = null;
      let error = null;
      try {
        info = x12.describeSegment(m.set, m.version, m.segment);
      } catch (e) {
        error = errorInfo(e);
      }
      postMessage({ type: 'describe', id: m.id, info, error });
    }
  } catch (e) {
    postMessage({ type: 'error', error: errorInfo(e) });
  }
};
postMessage({ type: 'hello' });
