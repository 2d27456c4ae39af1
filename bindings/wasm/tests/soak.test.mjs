// Soak tests of x12kit-wasm (issue 34): each public operation called in a
// synchronous loop (no event-loop turn, no await) 300 times on a generated
// 1 MB input, in its own process (pkg/node, bench/memory.mjs). The bounds:
//
// - the module's linear memory after call 300 is exactly what it was after
//   call 50 (wasm memory grows in 64 KiB pages and never shrinks: anything
//   kept per call would show as pages); before issue 34, validate grew it by
//   about 200 KiB a call and segments() by 2.6 MiB;
// - the process's peak RSS stays under 256 MiB.
//
// And StreamValidator over a 256 MB generated stream (never held), with
// retain: 'counts': the module's memory stays under 32 MiB and grows by
// less than 2 MiB over the second half (the duplicate control number
// check's set, capped by the core). Run by test.sh.
// The Chromium side (ten 10 MB files validated one after
// another leave the memory where one left it) is in browser.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { OPS, measureInChild } from '../bench/memory.mjs';

const PEAK = 256; // MiB of RSS (JS memory: the results, the inputs; their garbage)
// parse with documents: false and segments() reading elements are parse and
// segments() on the same paths (bench/memory.mjs measures them).
const SOAKED = Object.keys(OPS).filter((op) => op !== 'parse-nodocs' && op !== 'segments-elements');

test('every operation, 300 calls in a synchronous loop on 1 MB: wasm memory flat after 50 calls, RSS < 256 MiB', { concurrency: 2 }, async (t) => {
  await Promise.all(
    SOAKED.map((op) =>
      t.test(OPS[op].label || op, async () => {
        const r = await measureInChild(op, [50, 300], 1);
        const [at50, at300] = r.at;
        console.log(`# soak ${op}: wasm memory ${r.start.toFixed(1)} MiB after 1 call, ${at50.toFixed(1)} after 50, ${at300.toFixed(1)} after 300; peak RSS ${r.peak.toFixed(0)} MiB`);
        assert.ok(r.inputBytes >= 1e6);
        assert.equal(at300, at50, `${op}: wasm memory grew from ${at50} MiB (call 50) to ${at300} MiB (call 300)`);
        assert.ok(r.peak < PEAK, `${op}: peak RSS ${r.peak.toFixed(0)} MiB`);
      }),
    ),
  );
});

test('StreamValidator over a 256 MB generated stream: wasm memory bounded (< 32 MiB, < 2 MiB more over the second half)', () => {
  const x12 = createRequire(import.meta.url)('../pkg/node/x12kit_wasm.js');
  const mb = Number(process.env.X12KIT_STREAM_MB || 256);
  const enc = new TextEncoder();
  let body = '';
  for (let i = 1; i <= 110; i++) body += `PO1*${i}*24*EA*12.50**VP*WIDGET-${String(i).padStart(6, '0')}*UP*012345678905~\nPID*F****A BLUE WIDGET OF SOME SIZE~\n`;
  const set = (n) => {
    const cn = String(n).padStart(9, '0');
    return `ST*850*${cn}~\nBEG*00*SA*PO-${cn}**20261122~\n${body}CTT*110~\nSE*${3 + 220 + 1}*${cn}~\n`;
  };
  const v = new x12.StreamValidator({ retain: 'counts' });
  v.feed('ISA*00*          *00*          *ZZ*ACMERETAIL     *ZZ*WIDGETCO       *261122*0930*U*00401*000000101*0*P*>~\nGS*PO*ACMERETAIL*WIDGETCO*20261122*0930*101*X*004010~\n');
  let fed = 0;
  let n = 0;
  let atHalf = 0;
  // Chunks of about 1 MiB, generated as they are fed (the input is never held).
  while (fed < mb * 1e6) {
    let chunk = '';
    while (chunk.length < 1 << 20) chunk += set(++n);
    const bytes = enc.encode(chunk);
    v.feed(bytes);
    fed += bytes.length;
    if (!atHalf && fed >= (mb * 1e6) / 2) atHalf = x12.__memoryBytes();
  }
  v.feed(`GE*${n}*101~\nIEA*1*000000101~\n`);
  const result = v.finish();
  const end = x12.__memoryBytes();
  v.free();
  console.log(`# StreamValidator over ${(fed / 1e6).toFixed(0)} MB (${n} sets): wasm memory ${(atHalf / 2 ** 20).toFixed(1)} MiB at half, ${(end / 2 ** 20).toFixed(1)} MiB at the end`);
  assert.equal(result.valid, true, JSON.stringify(result.diagnostics.slice(0, 3)));
  assert.equal(result.interchanges[0].groupCount, 1);
  // What grows is the duplicate control number check (each set's ST02 until
  // 100,000 of them, about 2 MB): bounded, whatever the stream's length.
  assert.ok(end - atHalf < 2 * 2 ** 20, `wasm memory grew from ${atHalf} to ${end} bytes over the second half`);
  assert.ok(end < 32 * 2 ** 20, `wasm memory ${end} bytes for a ${mb} MB stream`);
});
