// The measured operations, shared by the Node and Chromium runs: each gets
// the input as the library takes it (x12kit: bytes; the others: a string)
// and returns something derived from the result, checked once so that a fast
// wrong answer is caught.

/** Median MB/s (decimal) of f over at least 5 runs or 3 s, after one warm-up run. */
export async function measure(bytes, f) {
  await f();
  const runs = [];
  const start = performance.now();
  while (runs.length < 5 || (performance.now() - start < 3000 && runs.length < 50)) {
    const t = performance.now();
    await f();
    runs.push(bytes / 1e6 / ((performance.now() - t) / 1000));
  }
  runs.sort((a, b) => a - b);
  return runs[Math.floor(runs.length / 2)];
}

/** [name, library, operation, fn] for every case; `libs` holds what loaded. */
export function cases({ x12, stedi, nodeX12 }, bytes, text) {
  const list = [
    ['x12kit-wasm', 'parse (to objects)', () => x12.parse(bytes).interchanges.length],
    ['x12kit-wasm', 'parseToJson (bytes)', () => x12.parseToJson(bytes).length],
    ['x12kit-wasm', 'validate', () => x12.validate(bytes).interchanges.length],
    ['x12kit-wasm', 'validateToJson (bytes)', () => x12.validateToJson(bytes).length],
    ['x12kit-wasm', 'StreamValidator (1 MiB chunks)', () => {
      const v = new x12.StreamValidator();
      for (let o = 0; o < bytes.length; o += 1 << 20) v.feed(bytes.subarray(o, o + (1 << 20)));
      const n = v.finishToJson().length;
      v.free();
      return n;
    }],
    ['x12kit-wasm', 'acknowledge (997/999)', () => x12.acknowledge(bytes, { structure: false, now: 1700000000 }).length],
  ];
  if (stedi) {
    list.push(['@stedi/x12-tools', 'metadata (envelopes)', () => stedi.metadata(text).interchanges.length]);
    list.push(['@stedi/x12-tools', 'ack (997)', () => (stedi.ack(text, '1', '1') || '').length]);
  }
  if (nodeX12) {
    list.push(['node-x12', 'X12Parser.parse (full)', () => new nodeX12.X12Parser(true).parse(text).functionalGroups?.length ?? 1]);
  }
  return list;
}

/**
 * The x12kit/@stedi pairs doing the same job, for the ratio: [name, x12kit fn, @stedi fn].
 * Validation (every envelope rule and summary) against @stedi's envelope metadata,
 * and a 997/999 against @stedi's 997.
 */
export function pairs({ x12, stedi }, bytes, text) {
  if (!stedi) return [];
  return [
    ['validateToJson / metadata', () => x12.validateToJson(bytes).length, () => stedi.metadata(text).interchanges.length],
    ['validate / metadata', () => x12.validate(bytes).interchanges.length, () => stedi.metadata(text).interchanges.length],
    ['acknowledge / ack', () => x12.acknowledge(bytes, { structure: false, now: 1700000000 }).length, () => (stedi.ack(text, '1', '1') || '').length],
  ];
}

/**
 * The speed ratio a/b, robust to a loaded machine: a and b run alternately
 * (21 rounds after a warm-up), so both see the same load; the result is the
 * median of the per-round ratios, with each side's median MB/s.
 */
export async function interleaved(bytes, a, b, rounds = 21) {
  await a();
  await b();
  const ratios = [];
  const ta = [];
  const tb = [];
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    await a();
    const da = performance.now() - t;
    t = performance.now();
    await b();
    const db = performance.now() - t;
    ta.push(da);
    tb.push(db);
    ratios.push(db / da);
  }
  const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return { ratio: med(ratios), a: bytes / 1e6 / (med(ta) / 1000), b: bytes / 1e6 / (med(tb) / 1000) };
}
