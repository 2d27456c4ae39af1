// Two builds of x12kit-wasm against each other and against @stedi/x12-tools,
// x12kit's validateToJson, then its validate (to objects), against @stedi's
// metadata on the same file, in one Node process and then in one headless
// Chromium page, the three taking turns (21 rounds after a warm-up, the order
// reversed every other round); the figure is the median of the per-round ratios:
//   node bindings/wasm/bench/compare.mjs OLD_PKG_DIR [FILE]
// OLD_PKG_DIR is a `pkg/` folder (with node/ and web/) that build.sh made at
// another commit, copied aside before rebuilding; the new build is ../pkg.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { serve } from '../scripts/serve.mjs';
import { launch } from '../tests/browser/chromium.mjs';

const require = createRequire(import.meta.url);
const [oldArg, file = '/tmp/x12kit-bench-10mb.x12'] = process.argv.slice(2);
if (!oldArg) {
  console.error('usage: node compare.mjs OLD_PKG_DIR [FILE]');
  process.exit(2);
}
const oldDir = resolve(oldArg);
const bytes = new Uint8Array(readFileSync(file));

/**
 * Runs in Node and (serialized) in the page: the interleaved rounds of f.old,
 * f.new, f.stedi; f.same() checks once that the two builds give the same result.
 */
function rounds(f, n) {
  const mbs = (g) => {
    const t = performance.now();
    g();
    return n / 1e3 / (performance.now() - t);
  };
  if (!f.same()) throw new Error('the two builds validate to different results');
  f.stedi();
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
  const out = {};
  for (const k in runs) out[`${k} MB/s`] = median(runs[k]);
  for (const k in ratios) out[k] = median(ratios[k]);
  return out;
}

/** Both comparisons: validateToJson, then validate (to objects, compared once as JSON). */
function both(oldx, newx, stedi, bytes, text) {
  const stediRun = () => stedi.metadata(text).interchanges.length;
  const sameJson = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
  return [
    { op: 'validateToJson', ...rounds({
      same: () => sameJson(oldx.validateToJson(bytes), newx.validateToJson(bytes)),
      old: () => oldx.validateToJson(bytes).length,
      new: () => newx.validateToJson(bytes).length,
      stedi: stediRun,
    }, bytes.length) },
    { op: 'validate (objects)', ...rounds({
      same: () => JSON.stringify(oldx.validate(bytes)) === JSON.stringify(newx.validate(bytes)),
      old: () => oldx.validate(bytes).interchanges.length,
      new: () => newx.validate(bytes).interchanges.length,
      stedi: stediRun,
    }, bytes.length) },
  ];
}

function print(where, r) {
  const mb = ['old', 'new', 'stedi'].map((k) => `${k} ${r[`${k} MB/s`].toFixed(0)}`).join(', ');
  console.log(`${where}: ${r.op} / metadata MB/s: ${mb}; new / old ${r['new / old'].toFixed(2)}x, new / @stedi ${r['new / @stedi'].toFixed(2)}x, old / @stedi ${r['old / @stedi'].toFixed(2)}x`);
}

// ---- Node
{
  const oldx = require(resolve(oldDir, 'node/x12kit_wasm.js'));
  const newx = require('../pkg/node/x12kit_wasm.js');
  const stedi = require('@stedi/x12-tools');
  const text = new TextDecoder().decode(bytes);
  for (const r of both(oldx, newx, stedi, bytes, text)) print('Node', r);
}
// ---- Chromium: the old build's web glue is served at /old/
{
  const { server, url } = await serve(0);
  const browser = await launch();
  const page = await browser.newPage();
  await page.route('**/bench-input.x12', (r) => r.fulfill({ body: Buffer.from(bytes), contentType: 'application/octet-stream' }));
  await page.route('**/old/x12kit_wasm.js', (r) => r.fulfill({ body: readFileSync(resolve(oldDir, 'web/x12kit_wasm.js')), contentType: 'text/javascript' }));
  await page.route('**/old/x12kit_wasm_bg.wasm', (r) => r.fulfill({ body: readFileSync(resolve(oldDir, 'web/x12kit_wasm_bg.wasm')), contentType: 'application/wasm' }));
  await page.goto(`${url}/repo/bindings/wasm/bench/browser.html`);
  const r = await page.evaluate(async ({ src, roundsSrc }) => {
    const oldx = await import('/old/x12kit_wasm.js');
    await oldx.default({ module_or_path: '/old/x12kit_wasm_bg.wasm' });
    const newx = await import('/pkg/web/x12kit_wasm.js');
    await newx.default({ module_or_path: '/pkg/web/x12kit_wasm_bg.wasm' });
    // @stedi/x12-tools ships only a nodejs build: its glue with a require shim, as browser.html does.
    const base = './node_modules/@stedi/x12-tools/';
    const glue = await (await fetch(base + 'x12_tools_wasm.js')).text();
    const wasm = new Uint8Array(await (await fetch(base + 'x12_tools_wasm_bg.wasm')).arrayBuffer());
    const module = { exports: {} };
    const req = (name) => ({ util: { TextEncoder, TextDecoder }, path: { join: (a, b) => b }, fs: { readFileSync: () => wasm } })[name];
    new Function('module', 'exports', 'require', '__dirname', glue)(module, module.exports, req, '.');
    const stedi = module.exports;
    const input = new Uint8Array(await (await fetch('/bench-input.x12')).arrayBuffer());
    const text = new TextDecoder().decode(input);
    const both = new Function('rounds', `return (${src})`)(new Function(`return (${roundsSrc})`)());
    return both(oldx, newx, stedi, input, text);
  }, { src: both.toString(), roundsSrc: rounds.toString() });
  for (const x of r) print('Chromium', x);
  await browser.close();
  server.close();
}
