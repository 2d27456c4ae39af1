// x12kit-wasm in headless Chromium (the pkg/web output served from 127.0.0.1):
// every tests/vectors case byte for byte, errors as Error objects, and a
// 100 MB stream validated with bounded wasm memory. Run by test.sh.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../scripts/serve.mjs';
import { launch } from './browser/chromium.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(readFileSync(join(here, '..', '..', '..', 'tests', 'vectors', 'manifest.json'), 'utf8'));
const { server, url } = await serve(0);
const browser = await launch();
after(async () => {
  await browser.close();
  server.close();
});
const page = await browser.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
await page.goto(`${url}/tests/browser/vectors.html`);
await page.waitForFunction(() => window.results !== undefined, null, { timeout: 120_000 });
const results = await page.evaluate(() => window.results);

test('the browser ran the manifest', () => {
  assert.ok(Array.isArray(results), JSON.stringify(results));
  assert.equal(results.length, manifest.cases.length);
  assert.deepEqual(errors, []);
});
for (const [i, c] of manifest.cases.entries()) {
  test(`chromium vector ${c.id}`, () => {
    const r = results[i];
    assert.equal(r.id, c.id);
    assert.ok(r.ok, r.message);
  });
}

test('chromium: errors are Error objects with code, kind and details', async () => {
  const e = await page.evaluate(() => {
    try {
      window.x12.render('850', {}, '{}', { date: '20261122', time: '0930' });
    } catch (e) {
      return { isError: e instanceof Error, name: e.name, code: e.code, kind: e.kind, details: e.details.length };
    }
    return null;
  });
  assert.equal(e.isError, true);
  assert.equal(e.name, 'X12kitError');
  assert.equal(e.code, 'INVALID_PARTNER');
  assert.equal(e.kind, 'rejected');
  assert.ok(e.details > 0);
  const t = await page.evaluate(() => {
    try {
      window.x12.parse(42);
    } catch (e) {
      return { type: e instanceof TypeError, name: e.name, code: e.code };
    }
    return null;
  });
  assert.deepEqual(t, { type: true, name: 'X12kitTypeError', code: 'INVALID_ARGUMENT' });
});

test('chromium: the webhook clock is Date.now()', async () => {
  const r = await page.evaluate(() => {
    const now = Math.floor(Date.now() / 1000);
    const ok = window.x12.webhook.verify(['k'], window.x12.webhook.sign('k', now, 'b'), String(now), 'b');
    let stale = null;
    try {
      window.x12.webhook.verify(['k'], window.x12.webhook.sign('k', now - 1000, 'b'), String(now - 1000), 'b');
    } catch (e) {
      stale = e.code;
    }
    return { ok, now, stale };
  });
  assert.deepEqual(r.ok, { timestamp: r.now, secretIndex: 0 });
  assert.equal(r.stale, 'TIMESTAMP_OUT_OF_TOLERANCE');
});

test('chromium: a 100 MB stream validates with bounded wasm memory', async () => {
  const r = await page.evaluate(async () => {
    // One interchange, one group, 10 000 850 sets of about 10 KB each, fed as a ReadableStream of 1 MiB chunks.
    const enc = new TextEncoder();
    const line = (i) => `PO1*${i}*24*EA*12.50**VP*WIDGET-${String(i).padStart(6, '0')}*UP*012345678905~\nPID*F****A BLUE WIDGET OF SOME SIZE~\n`;
    let body = '';
    for (let i = 1; i <= 110; i++) body += line(i);
    const sets = 10_000;
    const set = (n) => {
      const cn = String(n).padStart(9, '0');
      return `ST*850*${cn}~\nBEG*00*SA*PO-${cn}**20261122~\n${body}CTT*110~\nSE*${3 + 220 + 1}*${cn}~\n`;
    };
    const head = 'ISA*00*          *00*          *ZZ*ACMERETAIL     *ZZ*WIDGETCO       *261122*0930*U*00401*000000101*0*P*>~\nGS*PO*ACMERETAIL*WIDGETCO*20261122*0930*101*X*004010~\n';
    const tail = `GE*${sets}*101~\nIEA*1*000000101~\n`;
    let n = 0;
    let total = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (n === 0) controller.enqueue(enc.encode(head));
        if (n === sets) {
          controller.enqueue(enc.encode(tail));
          controller.close();
          return;
        }
        let chunk = '';
        while (n < sets && chunk.length < (1 << 20)) chunk += set(++n);
        controller.enqueue(enc.encode(chunk));
      },
    });
    const before = window.wasmMemory.buffer.byteLength;
    const v = new window.x12.StreamValidator();
    const reader = stream.getReader();
    const t0 = performance.now();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      v.feed(value);
    }
    const result = v.finish();
    const ms = performance.now() - t0;
    v.free();
    return {
      total, ms, before, after: window.wasmMemory.buffer.byteLength,
      valid: result.valid, errors: result.errorCount, sets: result.interchanges[0].groups[0].transactions.length,
      diagnostics: result.diagnostics.slice(0, 3),
    };
  });
  assert.ok(r.total > 100_000_000, `fed ${r.total} bytes`);
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.valid, true);
  assert.equal(r.sets, 10_000);
  // The whole input is 100 MB; the wasm heap stays a small fraction of it.
  assert.ok(r.after < 48 * 1024 * 1024, `wasm memory grew to ${r.after} bytes (from ${r.before})`);
  console.log(`# 100 MB stream in Chromium: ${(r.total / 1e6 / (r.ms / 1000)).toFixed(0)} MB/s, wasm memory ${r.before} -> ${r.after} bytes`);
});

test('chromium: ten 10 MB files validated one after another leave the wasm memory where one left it', async () => {
  const r = await page.evaluate(() => {
    const enc = new TextEncoder();
    // A 10 MB 850 (about 1,500 sets of 20 lines), its control numbers from `k`.
    const file = (k) => {
      const isa = String(k).padStart(9, '0');
      let body = '';
      for (let i = 1; i <= 20; i++) body += `PO1*${i}*24*EA*12.50**VP*WIDGET-${String(i).padStart(6, '0')}*UP*012345678905~\nPID*F****A BLUE WIDGET OF SOME SIZE~\n`;
      const parts = [`ISA*00*          *00*          *ZZ*ACMERETAIL     *ZZ*WIDGETCO       *261122*0930*U*00401*${isa}*0*P*>~\nGS*PO*ACMERETAIL*WIDGETCO*20261122*0930*${k}*X*004010~\n`];
      let size = 0;
      let n = 0;
      while (size < 10_000_000) {
        const cn = String(++n).padStart(9, '0');
        const set = `ST*850*${cn}~\nBEG*00*SA*PO-${cn}**20261122~\n${body}CTT*20~\nSE*${3 + 40 + 1}*${cn}~\n`;
        parts.push(set);
        size += set.length;
      }
      parts.push(`GE*${n}*${k}~\nIEA*1*${isa}~\n`);
      return enc.encode(parts.join(''));
    };
    const x12 = window.x12;
    const after = [];
    let valid = 0;
    let acks = 0;
    // One after another, as a page checks the files a user drops (each file
    // made just before it is validated, then dropped).
    for (let k = 1; k <= 10; k++) {
      const bytes = file(k);
      const v = x12.validate(bytes, { structure: true });
      if (v.valid) valid++;
      acks += x12.acknowledge(v, { kind: '997', now: 1700000000 }).length > 0 ? 1 : 0;
      after.push(window.wasmMemory.buffer.byteLength);
    }
    return { after, valid, acks };
  });
  assert.equal(r.valid, 10);
  assert.equal(r.acks, 10);
  console.log(`# ten 10 MB files in Chromium: wasm memory ${r.after.join(', ')} bytes after each`);
  // Linear memory cannot shrink: what one 10 MB validation needed is kept,
  // and the nine after it fit in the same pages.
  assert.deepEqual(r.after, r.after.map(() => r.after[0]), `wasm memory after each file: ${r.after.join(', ')}`);
});

// Last: it resets the module. A panic in the web build (README, Panics).
test('chromium: a panic is an INTERNAL X12kitError, and the calls after it work', async () => {
  const r = await page.evaluate(async () => {
    const x12 = window.x12;
    const sample = new Uint8Array(await (await fetch('/samples/850-valid.x12')).arrayBuffer());
    const sv = new x12.StreamValidator();
    sv.feed(sample.subarray(0, 100));
    const caught = (f) => {
      try {
        f();
        return null;
      } catch (e) {
        return { error: e instanceof Error, runtime: e instanceof WebAssembly.RuntimeError, name: e.name, code: e.code, kind: e.kind, message: e.message, details: e.details };
      }
    };
    const panic = caught(() => x12.__panicForTests('a deliberate panic in Chromium'));
    const code = x12.errorForCode('INVALID_JSON').code; // a string argument first
    const valid = x12.validate(sample).valid;
    const again = caught(() => x12.__panicForTests('again'));
    const ack = x12.acknowledge(x12.validate(sample), { kind: '997', now: 1700000000 }).length;
    const stale = caught(() => sv.feed(sample.subarray(100)));
    sv.free();
    return { panic, code, valid, again, ack, stale };
  });
  assert.deepEqual(
    { ...r.panic, message: undefined },
    { error: true, runtime: false, name: 'X12kitError', code: 'INTERNAL', kind: 'internal', message: undefined, details: [] },
  );
  assert.match(r.panic.message, /^x12kit panicked \(a bug; please report it\): a deliberate panic in Chromium \(at .*lib\.rs:\d+\)$/);
  assert.equal(r.code, 'INVALID_JSON');
  assert.equal(r.valid, true);
  assert.match(r.again.message, /: again \(at /);
  assert.ok(r.ack > 100);
  assert.equal(r.stale.code, 'INTERNAL');
  assert.match(r.stale.message, /made before an internal error/);
  assert.deepEqual(errors, []);
});

// A panic inside the async step of a stream reading a Blob, in the web build:
// that next() rejects with the INTERNAL error within a bound (it hung before),
// the iterator is finished, and nothing reaches the page as an uncaught error.
test('chromium: a panic while transactions() reads a Blob rejects next() with INTERNAL, then it is done', async () => {
  const r = await page.evaluate(async () => {
    const x12 = window.x12;
    const sample = new Uint8Array(await (await fetch('/samples/850-valid.x12')).arrayBuffer());
    const bounded = (p) => Promise.race([
      p.then((value) => ({ value }), (e) => ({ error: { name: e.name, code: e.code, message: e.message } })),
      new Promise((resolve) => setTimeout(() => resolve({ hung: true }), 5000)),
    ]);
    const it = x12.transactions(new Blob([sample]));
    x12.__panicInStreamForTests('a deliberate panic in a stream');
    const first = await bounded(it.next());
    const after = await bounded(it.next());
    let sets = 0;
    for await (const _ of x12.transactions(new Blob([sample]))) sets++;
    return { first, after, sets };
  });
  assert.equal(r.first.hung, undefined, 'the next() that panicked settles');
  assert.deepEqual([r.first.error.name, r.first.error.code], ['X12kitError', 'INTERNAL']);
  assert.match(r.first.error.message, /^x12kit panicked \(a bug; please report it\): a deliberate panic in a stream \(at .*sets\.rs:\d+\)$/);
  assert.deepEqual(r.after, { value: { value: undefined, done: true } });
  assert.equal(r.sets, 2);
  assert.deepEqual(errors, []);
});
