// `transactions()` in Node (pkg/node): the sets of every parse vector of
// tests/vectors, read from a Blob, a ReadableStream cut at random and an
// async iterable, equal the expected parse result's sets with their headers
// (and the diagnostics its own), byte for byte through JSON; bad sources
// and options throw the package's errors; a failing stream rejects;
// `break` cancels the stream; a 256 MB generated stream leaves the wasm
// memory flat. `splitStream()`: every split vector's parts from a stream
// cut at random equal `split`'s; bad options are the package's errors; a
// 128 MB stream splits with the wasm memory flat. Run by bindings/wasm/test.sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const x12 = createRequire(import.meta.url)('../pkg/node/x12kit_wasm.js');
const vectors = join(root, 'tests', 'vectors');
const manifest = JSON.parse(readFileSync(join(vectors, 'manifest.json'), 'utf8'));

/** A xorshift generator (repeatable chunkings). */
function random(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/** A ReadableStream of `bytes` cut into chunks of 1 to `most` bytes. */
function streamOf(bytes, seed, most = 97) {
  const r = random(seed);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      const n = 1 + Math.floor(r() * most);
      c.enqueue(bytes.slice(at, at + n));
      at += n;
    },
  });
}

async function* chunksOf(bytes, size) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** The sets of the expected parse result, with their headers. */
function expectedSets(parsed) {
  const out = [];
  for (const i of parsed.interchanges) {
    for (const g of i.groups) {
      for (const t of g.transactions) out.push({ interchange: i.header, group: g.header ?? null, transaction: t });
    }
  }
  return out;
}

/** Every set and the diagnostics of `source` through transactions(). */
async function read(source, options) {
  let all;
  const it = x12.transactions(source, { ...options, onDiagnostics: (d) => (all = d) });
  const sets = [];
  for await (const s of it) sets.push(s);
  assert.deepEqual(it.diagnostics, all, 'onDiagnostics and .diagnostics agree');
  assert.equal(it.setsRead, sets.length);
  return { sets, diagnostics: all, bytesRead: it.bytesRead };
}

const parseCases = manifest.cases.filter((c) => c.op === 'parse');
test('the manifest has parse cases', () => assert.ok(parseCases.length > 50));
for (const c of parseCases) {
  test(`transactions: vector ${c.id}`, async () => {
    const input = new Uint8Array(readFileSync(join(vectors, c.args.input)));
    if (c.error) {
      let caught;
      try {
        x12.transactions(new Blob([input]), c.options);
      } catch (e) {
        caught = e;
      }
      assert.ok(caught, 'throws');
      assert.equal(caught.code, c.error.code);
      assert.equal(caught.kind, c.error.kind);
      if (c.error.pointer !== undefined) assert.equal(caught.pointer, c.error.pointer);
      return;
    }
    const want = JSON.parse(readFileSync(join(vectors, c.expect), 'utf8'));
    const sets = expectedSets(want);
    const seed = [...c.id].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7);
    for (const [how, source] of [
      ['Blob', new Blob([input])],
      ['ReadableStream', streamOf(input, seed)],
      ['ReadableStream of 1-byte chunks', streamOf(input, seed, 1)],
      ['async iterable', chunksOf(input, 4096)],
      ['bytes', input],
    ]) {
      const got = await read(source, c.options);
      assert.equal(got.sets.length, sets.length, `${how}: sets`);
      got.sets.forEach((s, k) => {
        assert.deepEqual(s.interchange, sets[k].interchange, `${how}: set ${k} interchange`);
        assert.deepEqual(s.group, sets[k].group, `${how}: set ${k} group`);
        assert.deepEqual(s.transaction, sets[k].transaction, `${how}: set ${k} transaction`);
        // Its diagnostics: those of the parse at its segments (ST through its end).
        for (const d of s.diagnostics) assert.ok(want.diagnostics.some((w) => JSON.stringify(w) === JSON.stringify(d)), `${how}: ${JSON.stringify(d)}`);
      });
      assert.deepEqual(got.diagnostics, want.diagnostics, `${how}: diagnostics`);
      assert.equal(got.bytesRead, input.length, `${how}: bytesRead`);
    }
  });
}

test('transactions: a set over maxSetBytes is SET_TOO_LARGE with no segments, the sets after it follow', async () => {
  const input = readFileSync(join(vectors, 'inputs', 'set-too-large.edi'));
  const { sets } = await read(new Blob([input]), { maxSetBytes: 300 });
  assert.ok(sets.length >= 3);
  const over = sets.filter((s) => s.diagnostics.some((d) => d.code === 'SET_TOO_LARGE'));
  assert.equal(over.length, 1);
  assert.deepEqual(over[0].transaction.segments, []);
  assert.ok(sets.indexOf(over[0]) < sets.length - 1, 'sets follow it');
});

test('transactions: a truncated input hands over the set it cuts; SE_MISSING, GE_MISSING, IEA_MISSING at the end', async () => {
  const input = readFileSync(join(vectors, 'inputs', '850-basic.edi'));
  const cut = input.subarray(0, input.indexOf('SE*'));
  const { sets, diagnostics } = await read(streamOf(cut, 3));
  assert.equal(sets.length, 1);
  assert.equal(sets[0].transaction.trailer, null);
  for (const code of ['SE_MISSING', 'GE_MISSING', 'IEA_MISSING']) assert.ok(diagnostics.some((d) => d.code === code), code);
});

test('transactions: bad sources and options throw the package errors', () => {
  const throwsCode = (f, code, pointer) => {
    let caught;
    try {
      f();
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof Error, `expected ${code}`);
    assert.equal(caught.code, code, caught.message);
    if (pointer) assert.equal(caught.pointer, pointer);
  };
  for (const bad of [undefined, null, 5, {}, true]) throwsCode(() => x12.transactions(bad), 'INVALID_ARGUMENT');
  throwsCode(() => x12.transactions(new Blob([]), { document: false }), 'INVALID_OPTIONS', '/document');
  throwsCode(() => x12.transactions(new Blob([]), { maxSetBytes: -1 }), 'INVALID_OPTIONS', '/maxSetBytes');
  throwsCode(() => x12.transactions(new Blob([]), { onDiagnostics: 1 }), 'INVALID_ARGUMENT');
});

test('transactions: a chunk that is not bytes, and a stream that fails, reject the next() and end the iteration', async () => {
  const it = x12.transactions([new Uint8Array([73]), 42]);
  await assert.rejects(it.next(), (e) => e.code === 'INVALID_ARGUMENT');
  assert.deepEqual(await it.next(), { value: undefined, done: true });
  const failing = new ReadableStream({
    pull(c) {
      c.error(new Error('disk gone'));
    },
  });
  const it2 = x12.transactions(failing);
  await assert.rejects(it2.next(), /disk gone/);
  assert.deepEqual(await it2.next(), { value: undefined, done: true });
});

/** `n` sets of an 850 (with `lines` PO1 lines) in one interchange, made a chunk at a time. */
function* generated(n, perChunk = 2000, lines = 1) {
  const enc = new TextEncoder();
  yield enc.encode('ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *231114*2213*U*00401*000000001*0*P*>~\nGS*PO*SENDER*RECEIVER*20231114*2213*1*X*004010~\n');
  for (let done = 0; done < n; done += perChunk) {
    let s = '';
    for (let k = done; k < Math.min(n, done + perChunk); k++) {
      const cn = String(k % 10000).padStart(4, '0');
      let body = `BEG*00*SA*PO-${k}**20231114~\nN1*ST*SHIP TO ${k}~\n`;
      for (let l = 1; l <= lines; l++) body += `PO1*${l}*2*EA*1.50**VP*SKU-${k}-${l}~\n`;
      s += `ST*850*${cn}~\n${body}CTT*${lines}~\nSE*${lines + 5}*${cn}~\n`;
    }
    yield enc.encode(s);
  }
  yield enc.encode(`GE*${n}*1~\nIEA*1*000000001~\n`);
}

test('transactions: next() called again before the last settled gives the sets in order', async () => {
  const it = x12.transactions(generated(50, 7));
  const got = await Promise.all(Array.from({ length: 52 }, () => it.next()));
  assert.deepEqual(got.slice(0, 50).map((r) => r.value.transaction.controlNumber), Array.from({ length: 50 }, (_, k) => String(k).padStart(4, '0')));
  assert.ok(got[50].done && got[51].done);
});

test('transactions: break cancels the stream', async () => {
  let cancelled = false;
  const input = readFileSync(join(vectors, 'inputs', 'set-too-large.edi'));
  const s = new ReadableStream({
    start(c) {
      c.enqueue(new Uint8Array(input));
    },
    cancel() {
      cancelled = true;
    },
  });
  const it = x12.transactions(s);
  for await (const _ of it) break;
  assert.ok(cancelled);
  assert.deepEqual(await it.next(), { value: undefined, done: true });
});

test('transactions: 128 MB streamed, the wasm memory stays flat', async () => {
  const n = 300_000; // ~450 bytes a set
  let bytes = 0;
  const source = (function* () {
    for (const c of generated(n, 2000, 12)) {
      bytes += c.length;
      yield c;
    }
  })();
  const it = x12.transactions(source, { documents: true });
  let sets = 0;
  let before;
  for await (const s of it) {
    sets++;
    if (sets === 10_000) before = x12.__memoryBytes();
  }
  const after = x12.__memoryBytes();
  assert.equal(sets, n);
  assert.deepEqual(it.diagnostics, []);
  assert.ok(bytes > 128e6, `${bytes} bytes`);
  assert.ok(after <= 32 * 1024 * 1024, `wasm memory ${after} bytes after ${bytes} bytes`);
  assert.ok(after - before <= 2 * 1024 * 1024, `wasm memory grew from ${before} to ${after}`);
  console.log(`# transactions: ${(bytes / 1e6).toFixed(0)} MB, ${n} sets, wasm memory ${(after / 1048576).toFixed(1)} MiB`);
});

// ---------------------------------------------------------------- splitStream
const splitCases = manifest.cases.filter((c) => c.op === 'split');
test('the manifest has split cases', () => assert.ok(splitCases.length >= 10));
for (const c of splitCases) {
  test(`splitStream: vector ${c.id}`, async () => {
    const input = new Uint8Array(readFileSync(join(vectors, c.args.input)));
    if (c.error) {
      let caught;
      try {
        x12.splitStream(new Blob([input]), c.options);
      } catch (e) {
        caught = e;
      }
      assert.ok(caught, 'throws');
      assert.equal(caught.code, c.error.code);
      if (c.error.pointer !== undefined) assert.equal(caught.pointer, c.error.pointer);
      return;
    }
    const want = x12.split(input, c.options);
    const seed = [...c.id].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 11);
    for (const [how, source] of [['Blob', new Blob([input])], ['ReadableStream', streamOf(input, seed, 13)]]) {
      let all;
      const it = x12.splitStream(source, { ...c.options, onDiagnostics: (d) => (all = d) });
      const parts = [];
      for await (const p of it) parts.push(p);
      assert.deepEqual(all, want.diagnostics, `${how}: diagnostics`);
      assert.equal(parts.length, want.parts.length, `${how}: parts`);
      parts.forEach((p, k) => {
        // The recipes may differ (a streamed part cut before its IEA was read has
        // no IEA range); each makes the part again.
        const { bytes, recipe, ...rest } = p;
        const { x12: text, recipe: wholeRecipe, ...meta } = want.parts[k];
        assert.deepEqual(rest, meta, `${how}: part ${k}`);
        assert.equal(new TextDecoder().decode(bytes), text, `${how}: part ${k} bytes`);
        // Made again from its recipe and the input's bytes in its ranges: the same part.
        assert.deepEqual(x12.rebuildPart(recipe, rangesOf(input, recipe)), p, `${how}: part ${k} rebuilt`);
        assert.deepEqual(x12.rebuildPart(wholeRecipe, rangesOf(input, wholeRecipe)), { ...p, recipe: wholeRecipe }, `${how}: part ${k} rebuilt from split's recipe`);
      });
    }
  });
}

/** The bytes of `input` in the ranges of a part's recipe, one after the other. */
function rangesOf(input, recipe) {
  const pieces = recipe.ranges.map(([a, b]) => input.subarray(a, b));
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) (out.set(p, at), (at += p.length));
  return out;
}

test('rebuildPart: a part of a Blob made again from its recipe and the ranges read from the Blob; bad recipes and bytes are typed errors', async () => {
  const input = new Uint8Array(readFileSync(join(vectors, 'inputs', 'split-850-five-sets.edi')));
  const file = new Blob([input]);
  const parts = [];
  for await (const p of x12.splitStream(file, { maxSets: 3, renumber: { interchange: 100, group: 200, set: 300 } })) parts.push(p);
  assert.equal(parts.length, 3);
  // The part the vector split/rebuild-part describes.
  assert.deepEqual(parts[1].recipe, {
    ranges: parts[1].recipe.ranges, setsRange: 2, sets: 1, segment: 17,
    renumber: { interchange: 101, group: 201, set: 303 }, maxSetBytes: 67108864,
  });
  assert.equal(parts[1].recipe.ranges.length, 4);
  for (const p of parts) {
    const bytes = new Uint8Array(await new Blob(p.recipe.ranges.map(([a, b]) => file.slice(a, b))).arrayBuffer());
    assert.deepEqual(x12.rebuildPart(p.recipe, bytes), p);
  }
  const bytes1 = rangesOf(input, parts[1].recipe);
  const code = (f) => {
    try {
      f();
    } catch (e) {
      return [e.name, e.code, e.pointer];
    }
    return 'no error';
  };
  assert.deepEqual(code(() => x12.rebuildPart(parts[1].recipe, bytes1.subarray(1))), ['X12kitTypeError', 'INVALID_ARGUMENT', undefined]);
  assert.deepEqual(code(() => x12.rebuildPart({ ...parts[0].recipe, ranges: parts[1].recipe.ranges }, bytes1)), ['X12kitTypeError', 'INVALID_ARGUMENT', undefined]);
  assert.deepEqual(code(() => x12.rebuildPart({ ...parts[1].recipe, setsRange: 7 }, bytes1)), ['X12kitTypeError', 'INVALID_OPTIONS', '/recipe']);
  assert.deepEqual(code(() => x12.rebuildPart({ ...parts[1].recipe, extra: 1 }, bytes1)), ['X12kitTypeError', 'INVALID_OPTIONS', '/recipe/extra']);
  assert.deepEqual(code(() => x12.rebuildPart(undefined, bytes1)), ['X12kitTypeError', 'INVALID_OPTIONS', '/recipe']);
  assert.deepEqual(code(() => x12.rebuildPart('recipe', bytes1)), ['X12kitTypeError', 'INVALID_OPTIONS', '/recipe']);
  assert.deepEqual(code(() => x12.rebuildPart({ ...parts[1].recipe, ranges: [[0, -1]] }, bytes1)), ['X12kitTypeError', 'INVALID_OPTIONS', '/recipe/ranges/0/1']);
  assert.deepEqual(code(() => x12.rebuildPart(parts[1].recipe, 42)), ['X12kitTypeError', 'INVALID_ARGUMENT', undefined]);
});

test('splitStream: parts of a 128 MB stream validate, the wasm memory stays flat', async () => {
  const n = 300_000;
  let bytes = 0;
  const source = (function* () {
    for (const c of generated(n, 2000, 12)) {
      bytes += c.length;
      yield c;
    }
  })();
  const it = x12.splitStream(source, { maxSets: 1000 });
  let parts = 0;
  let sets = 0;
  let before;
  for await (const p of it) {
    parts++;
    sets += p.sets.length;
    if (parts === 3) {
      before = x12.__memoryBytes();
      const v = x12.validate(p.bytes, { structure: true });
      assert.ok(v.valid, JSON.stringify(v.diagnostics.slice(0, 3)));
    }
  }
  const after = x12.__memoryBytes();
  assert.equal(sets, n);
  assert.equal(parts, n / 1000);
  assert.deepEqual(it.diagnostics, []);
  assert.ok(after <= 32 * 1024 * 1024, `wasm memory ${after} bytes after ${bytes} bytes`);
  assert.ok(after - before <= 2 * 1024 * 1024, `wasm memory grew from ${before} to ${after}`);
});

// ---------------------------------------------------------------- panics (last: they reset the module)
// A panic inside a stream's asynchronous step (`__panicInStreamForTests`:
// internal, not in the .d.ts) rejects that next() with the package's
// INTERNAL X12kitError, and the iterator is finished: every next() after it
// settles. Each wait is bounded: a promise that never settles fails the test
// (before the fix, the panic's error was thrown inside a task of
// wasm-bindgen-futures and the promise never settled).

/** `p`, or a rejection when it has not settled within `ms`. */
function within(p, what, ms = 5000) {
  let timer;
  const hung = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms (hangs)`)), ms);
  });
  return Promise.race([p, hung]).finally(() => clearTimeout(timer));
}

/** The rejection of `p` (fails when it fulfils or hangs). */
async function rejection(p, what) {
  try {
    const v = await within(p, what);
    assert.fail(`${what}: fulfilled with ${JSON.stringify(v)}`);
  } catch (e) {
    if (/still pending/.test(e.message)) throw e;
    return e;
  }
}

function assertInternal(e, message) {
  assert.equal(e.name, 'X12kitError');
  assert.equal(e.code, 'INTERNAL');
  assert.equal(e.kind, 'internal');
  assert.match(e.message, new RegExp(`^x12kit panicked \\(a bug; please report it\\): ${message} \\(at .*sets\\.rs:\\d+\\)$`));
}

for (const [name, open] of [
  ['transactions', (source) => x12.transactions(source)],
  ['splitStream', (source) => x12.splitStream(source, { maxSets: 5 })],
]) {
  test(`${name}: a panic in its asynchronous step rejects next() with INTERNAL, then the iterator is finished`, async () => {
    const input = new Uint8Array(readFileSync(join(vectors, 'inputs', '850-basic.edi')));
    // From a Blob (the page's File), then from an async iterable.
    for (const [how, source] of [['Blob', new Blob([input])], ['iterable', generated(40, 3)]]) {
      const it = open(source);
      x12.__panicInStreamForTests(`panic in ${name} from a ${how}`);
      const first = it.next();
      const second = it.next(); // asked before the first settled
      assertInternal(await rejection(first, `${how}: the next() that panicked`), `panic in ${name} from a ${how}`);
      const e2 = await rejection(second, `${how}: the next() asked before`);
      assert.deepEqual([e2.name, e2.code, e2.kind], ['X12kitError', 'INTERNAL', 'internal']);
      assert.match(e2.message, /under way when an internal error \(a panic\) reset the module/);
      // Finished: next() settles, done; return() too.
      assert.deepEqual(await within(it.next(), `${how}: next() after`), { value: undefined, done: true });
      assert.deepEqual(await within(it.return(), `${how}: return() after`), { value: undefined, done: true });
      // The module works again, streams too.
      assert.equal(x12.validate(input).valid, true);
      const again = [];
      for await (const s of open(new Blob([input]))) again.push(s);
      assert.equal(again.length, 1);
    }
  });
}
