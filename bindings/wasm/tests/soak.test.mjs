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
// Run by test.sh. The Chromium side (ten 10 MB files validated one after
// another leave the memory where one left it) is in browser.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
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
