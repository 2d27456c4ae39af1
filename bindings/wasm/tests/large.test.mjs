// The page's set-by-set reading of a file of any size, in headless Chromium:
// a generated ~1 GB file picked through the file input streams through
// `transactions(file)` in the worker with progress, the summary (sets by type,
// diagnostics by code) appears, and the renderer's peak memory (VmHWM of the
// renderer processes of this browser, from /proc) stays far below the file:
// the page never holds it. Bounded in time. Screenshots during and after, into
// $X12KIT_SCREENSHOTS (a temporary folder by default). Run by test.sh.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, writeSync, closeSync, rmSync, readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { serve } from '../scripts/serve.mjs';
import { launch } from './browser/chromium.mjs';

const shots = process.env.X12KIT_SCREENSHOTS || join(tmpdir(), 'x12kit-wasm-screenshots');
mkdirSync(shots, { recursive: true });
const SIZE = Number(process.env.X12KIT_LARGE_BYTES || 1_000_000_000);
const LINES = 40; // PO1 lines a set: about 1.4 KB a set
const BOUND = 384 * 1024 * 1024; // renderer peak RSS, bytes

let server, url, browser, page, path;
const errors = [];

/** Writes a file of about `size` bytes: one interchange of 850s, one of them without its SE. */
function generate(file, size) {
  const fd = openSync(file, 'w');
  let written = 0;
  const put = (s) => {
    const b = Buffer.from(s);
    writeSync(fd, b);
    written += b.length;
  };
  put('ISA*00*          *00*          *ZZ*ACMERETAIL     *ZZ*WIDGETCO       *261122*0930*U*00401*000000101*0*P*>~\nGS*PO*ACMERETAIL*WIDGETCO*20261122*0930*101*X*004010~\n');
  let lines = '';
  for (let l = 1; l <= LINES; l++) lines += `PO1*${l}*12*EA*4.25**VP*WIDGET-${l}*UP*01234567890${l % 10}~\n`;
  let n = 0;
  const cut = 1000; // this set has no SE: an SE_MISSING error, the sets after it follow
  while (written < size) {
    let chunk = '';
    for (let k = 0; k < 2000; k++) {
      n++;
      const cn = String(n).padStart(9, '0');
      const se = n === cut ? '' : `SE*${LINES + 5}*${cn}~\n`;
      chunk += `ST*850*${cn}~\nBEG*00*SA*PO-${n}**20261122~\nN1*ST*STORE ${n % 500}~\n${lines}CTT*${LINES}~\n${se}`;
    }
    put(chunk);
  }
  put(`GE*${n}*101~\nIEA*1*000000101~\n`);
  closeSync(fd);
  return { sets: n, bytes: written };
}

/** The pids of this test's Chromium (launched by this process) and its descendants. */
function chromiumTree() {
  const procs = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      procs.push({ pid: Number(d), ppid, cmd });
    } catch {
      // gone
    }
  }
  const tree = new Set(procs.filter((p) => p.ppid === process.pid && /chrom/.test(p.cmd)).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!tree.has(p.pid) && tree.has(p.ppid)) (tree.add(p.pid), (grew = true));
  }
  return procs.filter((p) => tree.has(p.pid));
}

/** The largest peak RSS (VmHWM) of this browser's renderer processes, in bytes. */
function rendererPeak() {
  let most = 0;
  for (const p of chromiumTree().filter((p) => p.cmd.includes('--type=renderer'))) {
    try {
      const m = readFileSync(`/proc/${p.pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+) kB/m);
      if (m) most = Math.max(most, Number(m[1]) * 1024);
    } catch {
      // gone
    }
  }
  return most;
}

before(async () => {
  path = join(tmpdir(), `x12kit-large-${process.pid}.x12`);
  ({ server, url } = await serve(0));
  browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${url}/`);
});
after(async () => {
  await browser?.close();
  server?.close();
  if (path) rmSync(path, { force: true });
});

test('a 1 GB file read set by set: progress, the summary, renderer memory far below the file', { timeout: 300_000 }, async () => {
  const t0 = Date.now();
  const { sets, bytes } = generate(path, SIZE);
  const generatedMs = Date.now() - t0;
  assert.ok(bytes >= SIZE);
  const before = rendererPeak();
  assert.ok(before > 0, 'the renderer process is found');
  const t1 = Date.now();
  await page.setInputFiles('#sets-file', path);
  // Progress shows while it reads.
  await page.waitForFunction(() => {
    const p = document.getElementById('sets-progress');
    return p.value > 5 && p.value < 95;
  }, null, { timeout: 60_000 });
  await page.locator('#sets-h').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'large-file-reading.png') });
  const during = await page.textContent('#sets-progress-label');
  assert.match(during, /^Read [\d.]+ of [\d.]+ MB \(\d+%\): [\d,]+ sets$/);
  await page.waitForFunction(() => /transaction sets;/.test(document.getElementById('sets-status').textContent), null, { timeout: 240_000 });
  const readMs = Date.now() - t1;
  const peak = rendererPeak();
  await page.locator('#sets-h').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'large-file-read.png') });
  const status = await page.textContent('#sets-status');
  const mb = (bytes / 1e6).toFixed(1);
  assert.equal(status, `x12kit-large-${process.pid}.x12: read ${mb} MB, ${sets.toLocaleString('en-US')} transaction sets; 1 error, 0 warnings.`);
  assert.equal(await page.textContent('#sets-types tbody'), `850${sets.toLocaleString('en-US')}1`);
  assert.match(await page.textContent('#sets-codes tbody'), /^SE_MISSINGerror1segment [\d,]+$/);
  assert.deepEqual(errors, []);
  console.log(`# large: ${mb} MB (${sets} sets) generated in ${generatedMs} ms, read set by set in the page in ${readMs} ms (${(bytes / 1e6 / (readMs / 1000)).toFixed(1)} MB/s); renderer peak RSS ${(peak / 1048576).toFixed(0)} MiB (${(before / 1048576).toFixed(0)} MiB before)`);
  assert.ok(peak < BOUND, `renderer peak RSS ${peak} bytes >= ${BOUND} reading a ${bytes}-byte file`);
  assert.ok(readMs < 180_000, `read in ${readMs} ms`);
});
