// Two builds of x12kit-wasm against each other and against @stedi/x12-tools
// in one Node process, taking turns (21 rounds after a warm-up, the order
// reversed every other round), the median of the per-round ratios:
//   node bindings/wasm/bench/compare.mjs OLD_PKG_NODE_DIR [FILE]
// OLD_PKG_NODE_DIR is a `pkg/node` made by build.sh (or wasm-bindgen
// --target nodejs) from another commit; the new build is ../pkg/node.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(import.meta.url);
const [oldDir, file = '/tmp/x12kit-bench-10mb.x12'] = process.argv.slice(2);
if (!oldDir) {
  console.error('usage: node compare.mjs OLD_PKG_NODE_DIR [FILE]');
  process.exit(2);
}
const oldx = require(resolve(oldDir, 'x12kit_wasm.js'));
const newx = require('../pkg/node/x12kit_wasm.js');
const stedi = require('@stedi/x12-tools');
const bytes = new Uint8Array(readFileSync(file));
const text = new TextDecoder().decode(bytes);
const f = {
  old: () => oldx.validateToJson(bytes).length,
  new: () => newx.validateToJson(bytes).length,
  stedi: () => stedi.metadata(text).interchanges.length,
};
if (f.old() !== f.new()) throw new Error('the two builds validate to different JSON lengths');
f.stedi();
const mbs = (g) => {
  const t = performance.now();
  g();
  return bytes.length / 1e3 / (performance.now() - t);
};
const runs = { old: [], new: [], stedi: [] };
const ratios = { 'new / old': [], 'new / @stedi': [], 'old / @stedi': [] };
for (let i = 0; i < 21; i++) {
  const m = {};
  for (const k of i % 2 ? ['stedi', 'new', 'old'] : ['old', 'new', 'stedi']) m[k] = mbs(f[k]);
  for (const k in m) runs[k].push(m[k]);
  ratios['new / old'].push(m.new / m.old);
  ratios['new / @stedi'].push(m.new / m.stedi);
  ratios['old / @stedi'].push(m.old / m.stedi);
}
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
console.log('validateToJson (old, new) and @stedi/x12-tools metadata, median MB/s:');
for (const k in runs) console.log(`  ${k}: ${median(runs[k]).toFixed(0)}`);
for (const k in ratios) console.log(`${k}: ${median(ratios[k]).toFixed(2)}x`);
