// The page (www/) driven in headless Chromium as a person would use it: the
// samples, a diagnostic clicked to its segment, the inspector, the 997
// downloaded and parsed, a picked file, pasted text, a file too large to keep
// (streamed by the worker with progress while the page stays responsive),
// the keyboard and 200% zoom. Screenshots go to $X12KIT_SCREENSHOTS, by
// default a folder under the system's temporary directory, so a test run
// leaves the tree as it was; scripts/refresh-screenshots.sh points it at
// www/screenshots/ to refresh the committed ones.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { serve } from '../scripts/serve.mjs';
import { launch } from './browser/chromium.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const x12 = createRequire(import.meta.url)('../pkg/node/x12kit_wasm.js');
const shots = process.env.X12KIT_SCREENSHOTS || join(tmpdir(), 'x12kit-wasm-screenshots');
mkdirSync(shots, { recursive: true });
const corpus = process.env.X12KIT_CORPUS || join(here, '..', '..', '..', '..', 'shared', 'corpus');

let server, url, browser, context, page;
const pageErrors = [];
before(async () => {
  ({ server, url } = await serve(0));
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  await page.goto(`${url}/`);
});
after(async () => {
  await browser?.close();
  server?.close();
});

/** Waits until the inspector (filled asynchronously by the worker's answer) shows a segment whose title matches `re`. */
async function inspectorShows(re) {
  await page.waitForFunction((src) => new RegExp(src).test(document.getElementById('inspector-title').textContent), re.source, { timeout: 10_000 });
}

/** Waits for the results of the input named `name` (on `p`, default the shared page). */
async function resultsFor(name, p = page) {
  await p.waitForFunction((n) => {
    const v = document.getElementById('verdict');
    return !document.getElementById('results').hidden && v.textContent.startsWith(n + ':');
  }, name, { timeout: 60_000 });
}

test('the valid sample: verdict, outline, no diagnostics, mapped documents', async () => {
  await page.click('#sample-valid');
  await resultsFor('850-valid.x12');
  assert.match(await page.textContent('#verdict'), /valid — 0 warnings/);
  const outline = await page.textContent('#outline');
  assert.match(outline, /^interchange 000000101 {2}ZZ:ACMERETAIL -> ZZ:WIDGETCO {2}date 261122 0930 {2}version 00401 {2}usage P/m);
  assert.match(outline, /^ {2}group 101 {2}PO {2}ACMERETAIL -> WIDGETCO {2}version 004010 {2}2 sets \(850 x2\) {2}accepted$/m);
  assert.match(outline, /^ {4}set 850 0001 {2}20 segments {2}accepted$/m);
  assert.match(outline, /^ {4}set 850 0002 {2}8 segments {2}accepted$/m);
  assert.match(outline, /^total: 1 interchange, 1 group, 2 transaction sets, 32 segments, /m);
  assert.equal(await page.textContent('#diag-count'), '(0)');
  // The documents are shown once the worker has named each set.
  await page.waitForSelector('#documents[data-ready]');
  assert.equal(await page.locator('#documents details').count(), 2);
  assert.match(await page.textContent('#documents'), /850 0001 — Purchase Order/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(shots, 'valid-sample.png'), fullPage: false });
  await page.click('#documents details:first-child summary');
  assert.match(await page.textContent('#documents details:first-child pre'), /"purchaseOrderNumber": "PO-48213"/);
  await page.locator('#docs-h').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'mapped-document.png') });
});

test('the wrong SE01: one diagnostic; clicking it highlights the SE segment', async () => {
  await page.click('#sample-bad');
  await resultsFor('850-wrong-se01.x12');
  assert.match(await page.textContent('#verdict'), /a partner would reject it — 1 error/);
  assert.match(await page.textContent('#outline'), /^ {4}set 850 0001 {2}20 segments {2}rejected$/m);
  const rows = page.locator('#diagnostics tbody tr');
  assert.equal(await rows.count(), 1);
  const cells = await rows.first().locator('td').allTextContents();
  assert.deepEqual(cells.slice(1, 3), ['error', 'SE01_COUNT']);
  assert.match(cells[3], /SE01 says 19 segments .* has 20/);
  assert.equal(cells[4], '#21 SE');
  await rows.first().locator('button').click();
  const hl = page.locator('#raw .seg.hl');
  assert.equal(await hl.count(), 1);
  assert.equal(await hl.getAttribute('id'), 'seg-21');
  assert.equal(await hl.textContent(), 'SE*19*0001~');
  assert.ok(await hl.evaluate((e) => {
    const r = e.getBoundingClientRect();
    const box = e.closest('.raw').getBoundingClientRect();
    return r.top >= box.top && r.bottom <= box.bottom;
  }), 'the highlighted segment is scrolled into view');
  await inspectorShows(/^SE — Transaction Set Trailer$/);
  assert.match(await page.textContent('#inspector-context'), /^Segment 21 of the 850 Purchase Order \(004010\): transaction set segment\./);
  assert.match(await page.textContent('#inspector-table'), /SE01DE 96Number of Included SegmentsN0 1–10 · mandatory19/);
  // The element the diagnostic points at is marked in the inspector.
  assert.equal(await page.textContent('#inspector-table tr.current th'), 'SE01DE 96');
  assert.match(await page.textContent('#inspector-context'), /The SE01_COUNT diagnostic points at SE01\./);
  await page.locator('#diagnostics').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'diagnostic-highlight.png') });
});

test('the inspector: segment and element names, numbers and code meanings from the core', async () => {
  await page.click('#seg-3');
  await inspectorShows(/^BEG — Beginning Segment for Purchase Order$/);
  assert.match(await page.textContent('#inspector-context'), /^Segment 3 of the 850 Purchase Order \(004010\): mandatory, up to 1 use\.$/);
  const rows = await page.locator('#inspector-table tbody tr').allTextContents();
  assert.equal(rows[0], 'BEG01DE 353Transaction Set Purpose CodeID 2 · mandatory · document field purpose00Original');
  assert.equal(rows[1], 'BEG02DE 92Purchase Order Type CodeID 2 · mandatory · document field orderTypeSAStand-alone Order');
  assert.equal(rows[2], 'BEG03DE 324Purchase Order NumberAN 1–22 · mandatory · document field purchaseOrderNumberPO-48213');
  // N1: the entity code's meaning.
  await page.click('#seg-8');
  await inspectorShows(/^N1 — Name$/);
  const n1 = await page.locator('#inspector-table tbody tr').allTextContents();
  assert.equal(n1[0], 'N101DE 98Entity Identifier CodeID 2–3 · mandatory · document field codeSTShip To');
  assert.match(n1[2], /^N103DE 66Identification Code Qualifier.*92Assigned by Buyer or Buyer's Agent$/);
  await page.locator('#raw').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'inspector.png') });
  // Hovering shows another segment: PO1, with its qualifier/ID pairs.
  await page.hover('#seg-14');
  await inspectorShows(/^PO1 — Baseline Item Data$/);
  const po1 = await page.locator('#inspector-table tbody tr').allTextContents();
  assert.equal(po1[1], 'PO102DE 330Quantity OrderedR 1–15 · optional · document field quantity24');
  assert.match(po1[2], /^PO103DE 355Unit or Basis for Measurement Code.*EAEach$/);
  assert.match(po1[5], /^PO106DE 235Product\/Service ID QualifierID 2 · optionalVPVendor's \(Seller's\) Part Number$/);
  assert.match(po1[6], /^PO107DE 234Product\/Service IDAN 1–48 · optionalWID-100$/);
});

test('the inspector describes envelope segments too', async () => {
  await page.click('#seg-0');
  await inspectorShows(/^ISA — Interchange Control Header$/);
  assert.match(await page.textContent('#inspector-context'), /^Segment 0: interchange segment\./);
  const isa = await page.locator('#inspector-table tbody tr').allTextContents();
  assert.equal(isa.length, 16);
  assert.match(isa[5], /^ISA06DE I06Interchange Sender IDAN 15 · mandatoryACMERETAIL {5}$/);
  assert.match(isa[10], /^ISA11DE I10Interchange Control Standards Identifier.*UU\.S\. EDI Community of ASC X12, TDCC, and UCS$/);
  assert.match(isa[14], /^ISA15DE I14Interchange Usage Indicator.*PProduction Data$/);
  await page.click('#seg-1');
  await inspectorShows(/^GS — Functional Group Header$/);
  const gs = await page.locator('#inspector-table tbody tr').allTextContents();
  assert.match(gs[0], /^GS01DE 479Functional Identifier CodeID 2 · mandatoryPOPurchase Order \(850\)$/);
  assert.match(gs[7], /^GS08DE 480Version \/ Release \/ Industry Identifier Code.*004010$/);
  await page.locator('#raw').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'inspector-envelope.png') });
});

test('keyboard: the raw text moves between segments with the arrow keys', async () => {
  await page.mouse.move(0, 0);
  await page.focus('#raw');
  await page.keyboard.press('Home');
  await inspectorShows(/^ISA — Interchange Control Header$/);
  assert.match(await page.textContent('#inspector-table'), /ISA06DE I06Interchange Sender ID/);
  await page.keyboard.press('ArrowDown');
  await inspectorShows(/^GS — Functional Group Header$/);
  await page.keyboard.press('End');
  await inspectorShows(/^IEA — Interchange Control Trailer$/);
});

test('the 997 for the wrong SE01 downloads and parses clean', async () => {
  await page.selectOption('#ack-kind', '997');
  await page.waitForFunction(() => document.getElementById('ack').textContent.includes('ST*997'));
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#ack-download')]);
  assert.equal(dl.suggestedFilename(), '850-wrong-se01.997.x12');
  const ack = readFileSync(await dl.path());
  const parsed = x12.parse(ack);
  assert.deepEqual(parsed.diagnostics, []);
  assert.equal(parsed.interchanges[0].groups[0].transactions[0].type, '997');
  assert.match(ack.toString(), /AK2\*850\*0001~\nAK5\*R\*4~/);
  assert.equal(x12.validate(ack).valid, true);
  await page.locator('#ack-h').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'acknowledgement.png') });
});

test('the JSON parse result downloads and equals the core result', async () => {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#json-download')]);
  const json = readFileSync(await dl.path());
  const bad = readFileSync(join(here, '..', 'www', 'samples', '850-wrong-se01.x12'));
  assert.equal(Buffer.compare(json, Buffer.from(x12.parseToJson(bad))), 0);
  await page.click('#json-box summary');
  assert.match(await page.textContent('#json'), /"controlNumber": "000000101"/);
});

test('a picked file and pasted text are checked too', async () => {
  const file = join(corpus, '810', readFileSync(join(corpus, 'MANIFEST.tsv'), 'utf8').match(/810\/([^\t\n]+)/)[1]);
  await page.setInputFiles('#file', file);
  const name = file.split('/').at(-1);
  await resultsFor(name);
  const expected = x12.validate(readFileSync(file), { structure: true });
  assert.equal(await page.locator('#diagnostics tbody tr[data-diag]').count(), expected.diagnostics.length);

  await page.click('#paste-box summary');
  await page.fill('#paste', readFileSync(join(here, '..', 'www', 'samples', '850-wrong-se01.x12'), 'utf8'));
  await page.click('#paste-go');
  await resultsFor('pasted text');
  assert.equal(await page.locator('#diagnostics tbody tr').count(), 1);
});

test('a dropped file is checked (drag and drop onto the page)', async () => {
  const text = readFileSync(join(here, '..', 'www', 'samples', '850-wrong-se01.x12'), 'latin1');
  // What the browser hands the page when a file is dropped: a DataTransfer holding the File.
  const dataTransfer = await page.evaluateHandle((t) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], 'dropped-850.x12', { type: 'application/edi-x12' }));
    return dt;
  }, text);
  await page.dispatchEvent('#drop', 'dragenter', { dataTransfer });
  await page.dispatchEvent('#drop', 'dragover', { dataTransfer });
  assert.equal(await page.evaluate(() => document.getElementById('drop').classList.contains('over')), true, 'the drop zone shows the drag');
  await page.dispatchEvent('#drop', 'drop', { dataTransfer });
  await resultsFor('dropped-850.x12');
  assert.equal(await page.evaluate(() => document.getElementById('drop').classList.contains('over')), false);
  assert.match(await page.textContent('#verdict'), /^dropped-850\.x12: .*a partner would reject it — 1 error/);
  const outline = await page.textContent('#outline');
  assert.match(outline, /^interchange 000000101 {2}ZZ:ACMERETAIL -> ZZ:WIDGETCO {2}date 261122 0930 {2}version 00401 {2}usage P/m);
  assert.match(outline, /^ {2}group 101 {2}PO {2}ACMERETAIL -> WIDGETCO {2}version 004010 {2}2 sets \(850 x2\) {2}partiallyAccepted$/m);
  assert.match(outline, /^ {4}set 850 0001 {2}20 segments {2}rejected$/m);
  assert.match(outline, /^ {4}set 850 0002 {2}8 segments {2}accepted$/m);
  const cells = await page.locator('#diagnostics tbody tr').first().locator('td').allTextContents();
  assert.deepEqual(cells.slice(1, 3), ['error', 'SE01_COUNT']);
  // A drop of something that is not a file (text dragged from another page) changes nothing.
  const textOnly = await page.evaluateHandle(() => {
    const dt = new DataTransfer();
    dt.setData('text/plain', 'ISA*00*');
    return dt;
  });
  await page.dispatchEvent('#drop', 'drop', { dataTransfer: textOnly });
  assert.match(await page.textContent('#verdict'), /^dropped-850\.x12: /);
});

test('a partner guide beside the X12: its findings with their rules, the 999 with its codes, a bad guide refused', async () => {
  await page.click('#sample-guide');
  await page.waitForFunction(() => /^Loaded acme-retail-850 \(850 004010\)/.test(document.getElementById('guide-status').textContent));
  assert.match(await page.textContent('#guides'), /acme-retail-850 — 850 004010 \(acme-retail-850\.guide\.json\)/);
  // The valid sample sends CUR, which the demo partner's guide marks not used.
  await page.click('#sample-valid');
  await page.waitForFunction(() => !document.getElementById('guide-section').hidden
    && document.getElementById('verdict').textContent.startsWith('850-valid.x12:')
    && document.getElementById('guide-count').textContent === '(1)', null, { timeout: 60_000 });
  assert.match(await page.textContent('#verdict'), /a partner would reject it — 1 error/);
  const row = await page.textContent('#guide-findings tbody tr');
  assert.match(row, /GUIDE_SEGMENT_NOT_USED/);
  assert.match(row, /the partner's guide marks it not used/);
  assert.match(row, /#4 CUR/); // its index in the input (ISA is 0)
  assert.match(row, /IK304 I4/);
  assert.match(row, /\/segments\/CUR\/usage/);
  assert.match(await page.textContent('#diagnostics'), /\(guide rule \/segments\/CUR\/usage\)/);
  // The 999 carries the implementation code and rejects the set with I5.
  await page.selectOption('#ack-kind', '999');
  await page.waitForFunction(() => /IK3\*CUR\*3\*\*I4/.test(document.getElementById('ack').textContent));
  assert.match(await page.textContent('#ack'), /IK5\*R\*I5/);
  await page.evaluate(() => document.getElementById('guide-section').scrollIntoView());
  await page.screenshot({ path: join(shots, 'guide-findings.png') });
  // A guide that widens the standard: refused with every problem at its pointer, the list unchanged.
  const draft = { id: 'draft', documentType: '850', version: '004010', segments: { BEG: { elements: { BEG02: { codes: ['SA', 'NEW'] } } }, N3: {} } };
  await page.setInputFiles('#guide-file', { name: 'draft.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(draft)) });
  await page.waitForFunction(() => /^Could not use draft\.json: INVALID_GUIDE/.test(document.getElementById('guide-status').textContent));
  const why = await page.textContent('#guide-status');
  assert.match(why, /\/guides\/1\/segments\/BEG\/elements\/BEG02\/codes\/1 the code "NEW" is 3 long/);
  assert.match(why, /\/guides\/1\/segments\/N3 the 850 declaration has no segment N3 at the top of the set/);
  assert.equal(await page.locator('#guides li').count(), 1);
  await page.screenshot({ path: join(shots, 'guide-refused.png') });
  // Removed: the same file is valid again.
  await page.click('#guides li button');
  await page.waitForFunction(() => document.getElementById('guide-section').hidden
    && /^850-valid\.x12: valid/.test(document.getElementById('verdict').textContent), null, { timeout: 60_000 });
  assert.equal(await page.locator('#guides li').count(), 0);
  await page.selectOption('#ack-kind', 'auto');
});

test('the inspector says why it cannot describe a segment of a group whose version is not one', async () => {
  if (!(await page.$eval('#paste-box', (d) => d.open))) await page.click('#paste-box summary');
  const sample = readFileSync(join(here, '..', 'www', 'samples', '850-wrong-se01.x12'), 'utf8');
  await page.fill('#paste', sample.replace('*X*004010~', '*X*4010~'));
  await page.click('#paste-go');
  // The raw text of the new input (the verdict's name is the same as the last paste's).
  await page.waitForFunction(() => (document.getElementById('seg-1') || {}).textContent?.includes('*X*4010'), null, { timeout: 60_000 });
  await page.click('#seg-3');
  await page.waitForFunction(() => /cannot describe/.test(document.getElementById('inspector-context').textContent), null, { timeout: 10_000 });
  assert.equal(await page.textContent('#inspector-title'), 'BEG');
  assert.match(await page.textContent('#inspector-context'), /^Segment 3: x12kit cannot describe it \("4010" is not an X12 version: /);
});

test('a 40 MB file streams in the worker with progress while the page stays responsive', async () => {
  const one = readFileSync(join(here, '..', 'www', 'samples', '850-valid.x12'), 'utf8');
  const body = one.slice(one.indexOf('ST*850*0001'), one.indexOf('GE*'));
  const copies = Math.ceil(40e6 / body.length);
  const sets = [];
  for (let i = 0; i < copies; i++) {
    const a = String(2 * i + 1).padStart(9, '0');
    const b = String(2 * i + 2).padStart(9, '0');
    sets.push(body.replace('ST*850*0001~', `ST*850*${a}~`).replace('SE*20*0001~', `SE*20*${a}~`)
      .replace('ST*850*0002~', `ST*850*${b}~`).replace('SE*8*0002~', `SE*8*${b}~`));
  }
  const head = one.slice(0, one.indexOf('ST*850*0001'));
  const big = head + sets.join('') + `GE*${copies * 2}*101~\nIEA*1*000000101~\n`;
  const path = join(tmpdir(), 'x12kit-page-40mb.x12');
  writeFileSync(path, big);
  try {
    await page.evaluate(() => {
      window.__ticks = 0;
      window.__progress = new Set();
      window.__gaps = [];
      let lastTick = performance.now();
      window.__timer = setInterval(() => {
        const now = performance.now();
        const p = document.getElementById('progress').value;
        // Count only while the worker reads (progress between 0 and 100 %).
        if (p > 0 && p < 100) {
          window.__ticks++;
          window.__gaps.push(Math.round(now - lastTick));
        }
        lastTick = now;
        window.__progress.add(p);
      }, 20);
    });
    const t0 = Date.now();
    await page.setInputFiles('#file', path);
    await resultsFor('x12kit-page-40mb.x12');
    const ms = Date.now() - t0;
    const { ticks, progress, gaps } = await page.evaluate(() => {
      clearInterval(window.__timer);
      return { ticks: window.__ticks, progress: [...window.__progress], gaps: window.__gaps };
    });
    const maxGap = Math.max(...gaps);
    // Valid; more than 100 000 sets in one group: the core says it stopped checking ST02 duplicates.
    assert.match(await page.textContent('#verdict'), /valid — 1 warning$/);
    assert.match(await page.textContent('#diagnostics'), /DUPLICATE_CHECK_LIMIT/);
    assert.match(await page.textContent('#json-note'), /validated as a stream/);
    assert.match(await page.textContent('#outline'), new RegExp(`group 101 .* ${copies * 2} sets \\(850 x${copies * 2}\\)`));
    // The main thread kept running its 20 ms timer while the worker read the file: no pause over 250 ms.
    assert.ok(ticks >= 10, `only ${ticks} timer ticks while reading`);
    assert.ok(maxGap < 250, `the page froze for ${maxGap} ms while the worker read (gaps ${gaps.join(',')})`);
    assert.ok(progress.some((p) => p > 0 && p < 100), `progress values seen: ${progress.join(',')}`);
    assert.match(await page.textContent('#ack'), /AK9\*A\*/);
    console.log(`# page: 40 MB file checked in ${ms} ms; while reading, ${ticks} ticks of a 20 ms timer, longest gap ${maxGap} ms; ${progress.length} progress values`);
  } finally {
    rmSync(path, { force: true });
  }
});

test('works offline once loaded: a sample and pasted text are checked with the network off', async () => {
  await context.setOffline(true);
  try {
    await page.click('#sample-bad');
    await resultsFor('850-wrong-se01.x12');
    assert.match(await page.textContent('#verdict'), /1 error/);
    await page.click('#sample-valid');
    await resultsFor('850-valid.x12');
    assert.match(await page.textContent('#verdict'), /valid — 0 warnings/);
    // The paste box is open since the earlier test; the worker checks the text offline.
    await page.fill('#paste', readFileSync(join(here, '..', 'www', 'samples', '850-valid.x12'), 'utf8'));
    await page.click('#paste-go');
    await resultsFor('pasted text');
    assert.match(await page.textContent('#verdict'), /valid — 0 warnings/);
  } finally {
    await context.setOffline(false);
  }
});

test('works offline after a reload too: the service worker serves the page with the server gone', async () => {
  // Its own server (a new origin, so a new service worker) and browser context: the server is stopped.
  const own = await serve(0);
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const errors = [];
  try {
    const p = await ctx.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    await p.goto(`${own.url}/`);
    // Installed (the files stored) and in control of the page.
    await p.waitForFunction(() => navigator.serviceWorker?.controller != null, null, { timeout: 30_000 });
    await p.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    const stored = await p.evaluate(async () => {
      const names = await caches.keys();
      const keys = (await Promise.all(names.map(async (n) => (await caches.open(n)).keys()))).flat();
      return keys.map((r) => new URL(r.url).pathname);
    });
    for (const f of ['/', '/app.js', '/worker.js', '/style.css', '/samples/850-valid.x12', '/pkg/web/x12kit_wasm.js', '/pkg/web/x12kit_wasm_bg.wasm']) {
      assert.ok(stored.includes(f), `${f} is not stored (${stored.join(', ')})`);
    }
    // The network goes: the server stops (open connections too) and the browser is offline.
    own.server.close();
    own.server.closeAllConnections();
    await ctx.setOffline(true);
    await p.reload();
    assert.equal(await p.evaluate(() => navigator.onLine), false);
    await p.click('#sample-bad');
    await resultsFor('850-wrong-se01.x12', p);
    assert.match(await p.textContent('#verdict'), /a partner would reject it — 1 error/);
    assert.match(await p.textContent('#outline'), /^ {4}set 850 0001 {2}20 segments {2}rejected$/m);
    await p.click('#paste-box summary');
    await p.fill('#paste', readFileSync(join(here, '..', 'www', 'samples', '850-valid.x12'), 'utf8'));
    await p.click('#paste-go');
    await resultsFor('pasted text', p);
    assert.match(await p.textContent('#verdict'), /valid — 0 warnings/);
    assert.deepEqual(errors, []);
  } finally {
    await ctx.close();
    own.server.close();
  }
});

test('readable at 200% zoom: no horizontal scrolling of the page', async () => {
  await page.click('#sample-bad');
  await resultsFor('850-wrong-se01.x12');
  await page.setViewportSize({ width: 640, height: 900 }); // 1280 CSS px at 200%
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `page wider than the viewport by ${overflow}px`);
  await page.screenshot({ path: join(shots, 'zoom-200.png') });
  // The inspector at 200 %: below the raw text, its table as wide as the page.
  await page.click('#seg-3');
  await inspectorShows(/^BEG — Beginning Segment for Purchase Order$/);
  const inspectorOverflow = await page.evaluate(() => {
    const t = document.getElementById('inspector-table');
    return t.scrollWidth - document.getElementById('inspector').clientWidth;
  });
  assert.ok(inspectorOverflow <= 0, `inspector table wider than its panel by ${inspectorOverflow}px`);
  await page.locator('#inspector').scrollIntoViewIfNeeded();
  await page.mouse.move(0, 0); // the selected segment again, not the one under the pointer
  await page.waitForFunction(() => document.getElementById('inspector-context').textContent.startsWith('Segment 3 '));
  await page.screenshot({ path: join(shots, 'zoom-200-inspector.png') });
  await page.setViewportSize({ width: 1280, height: 1000 });
});

test('accessible: every control has a label, buttons are buttons, no page errors', async () => {
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea, button')]
      .filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
      .map((e) => e.outerHTML));
  assert.deepEqual(unlabelled, []);
  assert.equal(await page.locator('[onclick], div[role=button]').count(), 0);
  assert.equal(await page.getAttribute('#raw', 'tabindex'), '0');
  assert.equal(await page.getAttribute('#status', 'role'), 'status');
  assert.deepEqual(pageErrors, []);
});
