// x12kit-wasm against @stedi/x12-tools (also Rust -> WASM) and node-x12, in
// Node and in headless Chromium, on the generated 10 MB 850 file, with the
// native core for the ratio. Not a test: figures for the README.
//   bindings/wasm/bench/run.sh          (installs, generates, builds, runs)
import { createRequire } from 'node:module';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure, cases, pairs, interleaved } from './ops.mjs';
import { serve } from '../scripts/serve.mjs';
import { launch } from '../tests/browser/chromium.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const file = process.argv[2];
const native = JSON.parse(process.argv[3] || '{}');
const bytes = new Uint8Array(readFileSync(file));
const text = new TextDecoder().decode(bytes);
const MB = bytes.length / 1e6;

const results = [];
const ratios = [];
// ---- Node
{
  const libs = {
    x12: require('../pkg/node/x12kit_wasm.js'),
    stedi: require('@stedi/x12-tools'),
    nodeX12: require('node-x12'),
  };
  for (const [lib, op, f] of cases(libs, bytes, text)) {
    let mbs = null;
    let note = '';
    try {
      mbs = await measure(bytes.length, f);
    } catch (e) {
      note = String(e.message || e).slice(0, 80);
    }
    results.push({ where: 'Node', lib, op, mbs, note });
    console.error(`Node  ${lib} ${op}: ${mbs ? mbs.toFixed(1) + ' MB/s' : note}`);
  }
  for (const [name, a, b] of pairs(libs, bytes, text)) {
    const r = await interleaved(bytes.length, a, b);
    ratios.push({ where: 'Node', name, ...r });
    console.error(`Node  ${name}: ${r.ratio.toFixed(2)}x (interleaved)`);
  }
}
// ---- Chromium: x12kit-wasm (web) and @stedi/x12-tools (its nodejs glue run through a shim)
{
  const { server, url } = await serve(0);
  const browser = await launch();
  const page = await browser.newPage();
  await page.route('**/bench-input.x12', (r) => r.fulfill({ body: Buffer.from(bytes), contentType: 'application/octet-stream' }));
  await page.goto(`${url}/repo/bindings/wasm/bench/browser.html`);
  const { out, ratios: inBrowser } = await page.evaluate(() => window.run());
  for (const r of inBrowser) {
    ratios.push({ where: 'Chromium', ...r });
    console.error(`Chromium  ${r.name}: ${r.ratio.toFixed(2)}x (interleaved)`);
  }
  for (const r of out) {
    results.push({ where: 'Chromium', ...r });
    console.error(`Chromium  ${r.lib} ${r.op}: ${r.mbs ? r.mbs.toFixed(1) + ' MB/s' : r.note}`);
  }
  await browser.close();
  server.close();
}

// ---- the table
const fmt = (v) => (v == null ? '—' : v.toFixed(0));
const nativeOf = { 'parseToJson (bytes)': native.parseToJson, 'validateToJson (bytes)': native.validateToJson, 'StreamValidator (1 MiB chunks)': native.streamValidator };
console.log(`Input: ${file}, ${MB.toFixed(1)} MB (${readdirSync ? 'generated 850s' : ''}); median MB/s (decimal), in-process after a warm-up.\n`);
console.log('| library | operation | Node | Chromium | native core | WASM/native (Node) |');
console.log('|---|---|---:|---:|---:|---:|');
const keys = [...new Set(results.map((r) => `${r.lib}\u0000${r.op}`))];
for (const k of keys) {
  const [lib, op] = k.split('\u0000');
  const n = results.find((r) => r.where === 'Node' && r.lib === lib && r.op === op);
  const c = results.find((r) => r.where === 'Chromium' && r.lib === lib && r.op === op);
  const nat = lib === 'x12kit-wasm' ? nativeOf[op] : undefined;
  const ratio = nat && n && n.mbs ? `${Math.round((100 * n.mbs) / nat)}%` : '';
  console.log(`| ${lib} | ${op} | ${fmt(n?.mbs)}${n?.note ? ' (' + n.note + ')' : ''} | ${c ? fmt(c.mbs) : 'not run'}${c?.note ? ' (' + c.note + ')' : ''} | ${nat ? fmt(nat) : ''} | ${ratio} |`);
}

console.log('\nx12kit-wasm / @stedi/x12-tools on the same job, each pair run alternately (21 rounds; median of the per-round ratios):\n');
console.log('| x12kit / @stedi | where | x12kit MB/s | @stedi MB/s | ratio |');
console.log('|---|---|---:|---:|---:|');
for (const r of ratios) console.log(`| ${r.name} | ${r.where} | ${r.a.toFixed(0)} | ${r.b.toFixed(0)} | ${r.ratio.toFixed(1)}× |`);
