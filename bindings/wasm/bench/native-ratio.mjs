// The WASM/native ratio of the validators measured in turns, so that both
// sides of each ratio see about the same machine load: each round runs the
// native core (`examples/native.rs`, its own process, ~3 s per operation)
// and then the same operations in this Node process (`pkg/node`, the same
// `measure` as bench.mjs), the order swapped every other round; the figure
// is the median of the per-round ratios.
//   cargo build --release -p x12kit-wasm --example native
//   node bindings/wasm/bench/native-ratio.mjs FILE NATIVE_BINARY [ROUNDS]
// NATIVE_BINARY is that example (${CARGO_TARGET_DIR:-target}/release/examples/native).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { measure } from './ops.mjs';

const require = createRequire(import.meta.url);
const [file, nativeBin, roundsArg = '7'] = process.argv.slice(2);
if (!file || !nativeBin) {
  console.error('usage: node native-ratio.mjs FILE NATIVE_BINARY [ROUNDS]');
  process.exit(2);
}
const x12 = require('../pkg/node/x12kit_wasm.js');
const bytes = new Uint8Array(readFileSync(file));
const ops = {
  validateToJson: () => x12.validateToJson(bytes).length,
  streamValidator: () => {
    const v = new x12.StreamValidator();
    for (let o = 0; o < bytes.length; o += 1 << 20) v.feed(bytes.subarray(o, o + (1 << 20)));
    const n = v.finishToJson().length;
    v.free();
    return n;
  },
};
const native = () => JSON.parse(execFileSync(nativeBin, [file, Object.keys(ops).join(',')], { encoding: 'utf8' }));
const wasm = async () => {
  const out = {};
  for (const [op, f] of Object.entries(ops)) out[op] = await measure(bytes.length, f);
  return out;
};
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const ratios = Object.fromEntries(Object.keys(ops).map((op) => [op, []]));
const runs = { native: [], wasm: [] };
for (let i = 0; i < Number(roundsArg); i++) {
  let n, w;
  if (i % 2) {
    w = await wasm();
    n = native();
  } else {
    n = native();
    w = await wasm();
  }
  runs.native.push(n);
  runs.wasm.push(w);
  const row = Object.keys(ops).map((op) => {
    ratios[op].push(w[op] / n[op]);
    return `${op} wasm ${w[op].toFixed(0)} / native ${n[op].toFixed(0)} MB/s = ${((100 * w[op]) / n[op]).toFixed(0)}%`;
  });
  console.log(`round ${i + 1}: ${row.join('; ')}`);
}
for (const op of Object.keys(ops)) {
  const r = ratios[op];
  console.log(
    `${op}: wasm/native median ${(100 * median(r)).toFixed(0)}% (range ${(100 * Math.min(...r)).toFixed(0)}–${(100 * Math.max(...r)).toFixed(0)}%), ` +
      `wasm ${median(runs.wasm.map((w) => w[op])).toFixed(0)} MB/s, native ${median(runs.native.map((n) => n[op])).toFixed(0)} MB/s`,
  );
}
