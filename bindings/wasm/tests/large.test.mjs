// The page's set-by-set reading of a file of any size, in headless Chromium:
// a generated ~1 GB file picked through the file input streams through
// `transactions(file)` in the worker with progress, the summary (sets by type,
// diagnostics by code) appears, and the renderer's peak memory (VmHWM of the
// renderer processes of this browser, from /proc) stays far below the file:
// the page never holds it. Bounded in time. Screenshots during and after, into
// $X12KIT_SCREENSHOTS (a temporary folder by default). Then the same file
// split into parts of 1000 sets (`splitStream`) with the memory bounded the
// same way; the page lists every part a page at a time and makes any of them
// again from the file when asked (`rebuildPart`): parts 3, 60 and the last
// download and validate clean with the right sets. Run by test.sh.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, writeSync, closeSync, rmSync, readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { serve } from '../scripts/serve.mjs';
import { launch } from './browser/chromium.mjs';
import { createRequire } from 'node:module';

const x12 = createRequire(import.meta.url)('../pkg/node/x12kit_wasm.js');

const shots = process.env.X12KIT_SCREENSHOTS || join(tmpdir(), 'x12kit-wasm-screenshots');
mkdirSync(shots, { recursive: true });
const SIZE = Number(process.env.X12KIT_LARGE_BYTES || 1_000_000_000);
const LINES = 40; // PO1 lines a set: about 1.4 KB a set
// Renderer peak RSS (VmHWM, the whole renderer: page, worker, wasm, V8 heaps),
// bytes: measured 276 MiB reading a 1 GB file (157 MiB before it), 390 MiB
// after splitting it too (2 MB parts made faster than V8 collects them),
// 248 and 326 MiB for a 100 MB file: it follows the garbage collector's pace,
// not the file. Reading holds one set; splitting one part (and keeps each
// part's recipe, a few dozen bytes, in the worker).
const READ_BOUND = 384 * 1024 * 1024;
const SPLIT_BOUND = 480 * 1024 * 1024;

let server, url, browser, page, path, made;
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
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
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
  made = generate(path, SIZE);
  const { sets, bytes } = made;
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
  assert.ok(peak < READ_BOUND, `renderer peak RSS ${peak} bytes >= ${READ_BOUND} reading a ${bytes}-byte file`);
  assert.ok(readMs < 180_000, `read in ${readMs} ms`);
});

test('the same file split into parts of 1000 sets: every part listed a page at a time, the last one downloads and validates, memory bounded', { timeout: 300_000 }, async () => {
  assert.ok(made, 'the file of the test before');
  const { sets, bytes } = made;
  await page.fill('#split-sets', '1000');
  const t1 = Date.now();
  await page.setInputFiles('#split-file', path);
  await page.waitForSelector('#split-parts li:nth-child(3) button', { timeout: 60_000 });
  await page.waitForFunction(() => /^x12kit-large-\d+\.x12: split /.test(document.getElementById('sets-status').textContent), null, { timeout: 240_000 });
  const ms = Date.now() - t1;
  const peak = rendererPeak();
  const parts = Math.ceil(sets / 1000);
  const mb = (bytes / 1e6).toFixed(1);
  // The set without SE is in its part: every set is in one.
  assert.equal(await page.textContent('#sets-status'), `x12kit-large-${process.pid}.x12: split ${mb} MB into ${parts.toLocaleString('en-US')} parts holding ${sets.toLocaleString('en-US')} transaction sets; 1 error, 0 warnings reading it.`);
  assert.match(await page.textContent('#split-note'), /^Every part can be downloaded: each is made again from the file/);
  // A page of 50 parts, the pager counting all of them.
  await page.waitForFunction((n) => document.getElementById('split-range').textContent === `Parts 1–50 of ${n}`, parts.toLocaleString('en-US'), { timeout: 10_000 });
  assert.equal(await page.locator('#split-parts li').count(), 50);
  assert.ok(await page.isDisabled('#split-prev'));
  assert.equal(await page.isDisabled('#split-next'), parts <= 50);
  await page.locator('#split-pager').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'large-file-split.png') });
  console.log(`# large: ${mb} MB split into ${parts} parts in the page in ${ms} ms; renderer peak RSS ${(peak / 1048576).toFixed(0)} MiB`);
  assert.ok(peak < SPLIT_BOUND, `renderer peak RSS ${peak} bytes >= ${SPLIT_BOUND} splitting a ${bytes}-byte file`);
  assert.ok(ms < 180_000, `split in ${ms} ms`);

  /** Downloads part `n` (its button on the page shown) and checks it. */
  const downloadPart = async (n) => {
    const button = page.locator(`#split-parts button[data-n="${n}"]`);
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), button.click()]);
    const part = readFileSync(await download.path());
    const v = x12.validate(part, { structure: true });
    assert.ok(v.valid, `part ${n}: ${JSON.stringify(v.diagnostics.slice(0, 3))}`);
    const got = x12.parse(part, { documents: false }).interchanges[0].groups[0].transactions;
    const want = n < parts ? 1000 : sets - 1000 * (parts - 1);
    assert.equal(got.length, want, `part ${n}: sets`);
    // Its sets are the file's sets (n-1)*1000+1 on, control numbers kept.
    const first = (n - 1) * 1000 + 1;
    assert.deepEqual(got.map((t) => Number(t.controlNumber)), Array.from({ length: want }, (_, k) => first + k), `part ${n}: control numbers`);
    assert.equal(download.suggestedFilename(), `x12kit-large-${process.pid}-000000101-101-${String(first).padStart(9, '0')}.x12`);
    assert.equal(await button.textContent(), `Download part ${n.toLocaleString('en-US')}`);
    return part.length;
  };
  // Part 3 (sets 2001-3000: clean), from the first page.
  await downloadPart(3);
  // Next: parts 51-100; part 60 downloads (X12KIT_LARGE_BYTES may make fewer).
  if (parts >= 60) {
    await page.click('#split-next');
    await page.waitForFunction(() => document.getElementById('split-range').textContent.startsWith('Parts 51–'));
    await downloadPart(60);
  }
  // The last part, by its number: the last page, with what is left.
  await page.fill('#split-goto', String(parts));
  await page.dispatchEvent('#split-goto', 'change');
  const lastFrom = parts - ((parts - 1) % 50);
  await page.waitForFunction((t) => document.getElementById('split-range').textContent === t, `Parts ${lastFrom.toLocaleString('en-US')}–${parts.toLocaleString('en-US')} of ${parts.toLocaleString('en-US')}`);
  assert.ok(await page.isDisabled('#split-next'));
  assert.equal(await page.locator('#split-parts li').count(), parts - lastFrom + 1);
  const t2 = Date.now();
  const size = await downloadPart(parts);
  const lastMs = Date.now() - t2;
  await page.locator('#split-pager').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'large-file-split-last.png') });
  const after = rendererPeak();
  console.log(`# large: part ${parts} of ${parts} (${size} bytes) made again from the file and downloaded in ${lastMs} ms; renderer peak RSS ${(after / 1048576).toFixed(0)} MiB`);
  assert.ok(after < SPLIT_BOUND, `renderer peak RSS ${after} bytes >= ${SPLIT_BOUND} after the downloads`);
  assert.deepEqual(errors, []);
});
