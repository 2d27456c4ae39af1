// The dashboard driven in Debian's Chromium (headless, through playwright-core,
// as the WASM page's tests do) against the real x12kit-server on a fresh store,
// with a trading partner and webhook receivers that live in this test:
// sign-in and the lockout, the overview against the API, documents filtered and
// searched, the inspector highlighting a diagnostic, a received document's
// partner guide findings, a resend, a partner with a
// field error then fixed, a key created, used and revoked, a webhook endpoint
// with a test delivery, CSV intake with a bad row fixed, users and the audit
// log, an expired session, a phone's screen. axe-core checks every page; the
// Content-Security-Policy must never be violated. Screenshots go to
// $X12KIT_SCREENSHOTS (default: a folder under the system's temporary
// directory, so a test run leaves the tree as it was);
// examples/server/scripts/refresh-screenshots.sh copies the chosen ones into
// examples/server/screenshots/ for the README.
//
//   node --test examples/server/tests/dashboard/dashboard.test.mjs
//   (X12KIT_SERVER_BIN: the binary, default $CARGO_TARGET_DIR/debug/x12kit-server)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createInterface } from 'node:readline';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const serverDir = join(here, '..', '..');
const root = join(serverDir, '..', '..');
const bin = process.env.X12KIT_SERVER_BIN
  || join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'debug', 'x12kit-server');
const shots = process.env.X12KIT_SCREENSHOTS || join(tmpdir(), 'x12kit-dashboard-screenshots');
mkdirSync(shots, { recursive: true });
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const demo = readFileSync(join(serverDir, 'demo.toml'), 'utf8');
const ALPHA_KEY = 'x12k_demo_alpha';
const ADMIN = { email: 'admin@alpha.example', password: 'alpha-demo-password' };
const HOOK_SECRET = 'whsec_dashboard_test_secret_not_a_real_one';

// ---------------------------------------------------------------- the peers in this test

/** An HTTP server on 127.0.0.1 that records each request and answers with `answer(req, body)`. */
function peer(answer) {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method, url: req.url, headers: req.headers, body });
      const [status, text] = answer(req, body);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ server, requests, url: `http://127.0.0.1:${server.address().port}` });
  }));
}

// The trading partner: refuses (503) every interchange of a purchase order whose
// number starts with PO-FAIL while `partnerRefuses` is set.
let partnerRefuses = true;
let partner;
let receiver; // the account's webhook endpoint (configured)
let hooks; // the endpoint made in the page

// ---------------------------------------------------------------- the server

function config(dir, { partnerUrl, hookUrl, idleSeconds = 1800 }) {
  const keyHash = demo.match(/sha256 = "([0-9a-f]{64})"\s*# x12k_demo_alpha/)[1];
  const argon = demo.match(/password_argon2 = "([^"]+)"\s*# alpha-demo-password/)[1];
  return `listen = "127.0.0.1:0"
database = ${JSON.stringify(join(dir, 'dashboard.db'))}
secret_key_file = ${JSON.stringify(join(dir, 'secret.key'))}
create_secret_key_file = true
files_dir = ${JSON.stringify(join(dir, 'files'))}
wasm_package = ${JSON.stringify(join(root, 'bindings', 'wasm', 'pkg', 'web'))}
sign_in_hint = "sign in as admin@alpha.example"

[limits]
transactions_per_minute = 100000
parse_validate_per_minute = 100000
other_per_minute = 100000
session_per_minute = 100000
auth_per_ip_per_minute = 100000

[auth]
session_idle_seconds = ${idleSeconds}
session_absolute_seconds = 43200
lockout_failures = 5
lockout_seconds = 900

[workers]
enabled = true
poll_ms = 50
concurrency = 8
webhook_retry_ms = [200, 400]
webhook_timeout_ms = 3000

[[accounts]]
id = "alpha"

[[accounts.keys]]
name = "demo"
sha256 = "${keyHash}"

[[accounts.users]]
email = "${ADMIN.email}"
role = "admin"
password_argon2 = "${argon}"

[[accounts.partners]]
id = "acme-retail"
profile = ${JSON.stringify(join(root, 'examples', 'partners', 'acme-retail.json'))}

[accounts.partners.transport]
kind = "http"
url = "${partnerUrl}/edi"
retries = 1
backoff_ms = 50
timeout_ms = 3000

# The demo partner with its implementation guides (examples/guides, paths
# relative to the profile): what it sends is checked against them.
[[accounts.partners]]
id = "acme-guided"
profile = ${JSON.stringify(join(root, 'examples', 'partners', 'acme-retail-guided.json'))}

[[accounts.webhooks]]
url = "${hookUrl}/hooks"
secrets = ["${HOOK_SECRET}"]
`;
}

/** Starts x12kit-server on a fresh store; resolves to {base, stop, firstLines}. */
async function startServer(options) {
  const dir = mkdtempSync(join(tmpdir(), 'x12kit-dashboard-'));
  const file = join(dir, 'server.toml');
  writeFileSync(file, config(dir, options));
  const child = spawn(bin, ['--config', file], { env: { ...process.env, X12KIT_LOG: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const firstLines = [];
  // The first lines: the address, the dashboard, a call to try (the last of them).
  const base = await new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`x12kit-server exited ${code} (is it built? ${bin})`)));
    lines.on('line', (l) => {
      firstLines.push(l);
      if (l.startsWith('try: ')) resolve(firstLines[0].match(/^listening on (http:\/\/127\.0\.0\.1:\d+)$/)[1]);
    });
  });
  return {
    base,
    firstLines,
    stop: () => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let srv;
let base;

/** The API with the demo key. */
async function call(method, path, body, key = ALPHA_KEY) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'application/edi-x12' : 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

function po(number, lines = 1) {
  return {
    purchaseOrderNumber: number,
    shipTo: { id: '0003947268292', name: 'ACME Distribution Center' },
    lines: Array.from({ length: lines }, (_, i) => ({ lineNumber: i + 1, sku: `WID-${100 + i}`, quantity: 12 * (i + 1), unitPrice: 9.25 })),
  };
}

async function send(number) {
  const r = await call('POST', '/api/v1/documents/outbound', { partnerId: 'acme-retail', documentTypeCode: '850', payload: po(number, 2) });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body.documentId;
}

async function waitFor(what, f, ms = 20_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function statusOf(id) {
  return (await call('GET', `/api/v1/transactions/${id}`)).body.data.status;
}

// ---------------------------------------------------------------- the browser

let browser;
let context;
let page;
const problems = []; // CSP violations, page errors, 5xx answers
const docs = {};

function watch(p) {
  p.on('pageerror', (e) => problems.push(`page error: ${e}`));
  p.on('console', (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
    else if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  p.on('response', (r) => {
    if (r.status() >= 500) problems.push(`${r.status()} from ${r.url()}`);
  });
}

/** axe-core (from npm, injected by the test only) on the page as it is now: no violation. */
async function axe(p, name) {
  await p.evaluate(axeSource);
  const result = await p.evaluate(() => window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } }));
  const found = result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
  assert.deepEqual(found, [], `axe-core on ${name}`);
}

async function shot(name, options = {}) {
  await page.screenshot({ path: join(shots, `${name}.png`), ...options });
}

/** Goes to a route of the dashboard and waits for its heading. */
async function open(hash, heading) {
  const url = `${base}/${hash}`;
  // The same address again is no navigation (no hashchange): load the page anew.
  if (page.url() === url) await page.reload();
  else await page.goto(url);
  await page.waitForFunction((h) => {
    const t = document.getElementById('page-title');
    return t && (h ? t.textContent.startsWith(h) : true) && !document.querySelector('main [role=status].muted');
  }, heading, { timeout: 15_000 });
}

before(async () => {
  partner = await peer((req, body) => (partnerRefuses && /BEG\*00\*SA\*PO-FAIL/.test(body) ? [503, '{"ok":false}'] : [200, '{"ok":true}']));
  receiver = await peer(() => [200, '{"ok":true}']);
  hooks = await peer(() => [200, '{"received":true}']);
  srv = await startServer({ partnerUrl: partner.url, hookUrl: receiver.url });
  base = srv.base;
  // Documents for the pages: two that go through, one the partner refuses, one received with a wrong SE01.
  docs.ok1 = await send('PO-10045');
  docs.ok2 = await send('PO-10046');
  docs.fail = await send('PO-FAIL-7');
  const inbound = await call('POST', '/api/v1/documents/inbound?partnerId=acme-retail', readFileSync(join(root, 'examples', 'x12', 'purchase-order-se01-wrong.edi'), 'utf8'));
  assert.equal(inbound.status, 200, JSON.stringify(inbound.body));
  docs.inbound = inbound.body.data.transactions[0].documentId;
  await waitFor('the refused document to fail', async () => (await statusOf(docs.fail)) === 'failed');
  await waitFor('the others to be routed', async () => (await statusOf(docs.ok2)) === 'routed' && (await statusOf(docs.ok1)) === 'routed');
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await context.newPage();
  watch(page);
});

after(async () => {
  await browser?.close();
  srv?.stop();
  for (const p of [partner, receiver, hooks]) p?.server.close();
  assert.deepEqual(problems, [], 'no CSP violation, page error or 5xx');
});

// ---------------------------------------------------------------- the tests

test('the first lines say where the dashboard is and how to sign in', () => {
  assert.equal(srv.firstLines[1], `dashboard: ${base}/ (sign in as admin@alpha.example)`);
});

test('the page is served with a strict Content-Security-Policy, nothing from elsewhere', async () => {
  const r = await fetch(`${base}/`);
  const csp = r.headers.get('content-security-policy');
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.doesNotMatch(csp, /unsafe-inline|'unsafe-eval'|https?:/);
  assert.equal(r.headers.get('x-frame-options'), 'DENY');
  const html = await r.text();
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)|style=|https?:\/\//);
  const requested = [];
  page.on('request', (q) => requested.push(q.url()));
  await page.goto(`${base}/`);
  await page.waitForSelector('#email');
  assert.ok(requested.every((u) => u.startsWith(`${base}/`)), `only this origin: ${requested.join(', ')}`);
});

test('sign-in: a wrong password, then the lockout with the time it ends, then in', async () => {
  await page.goto(`${base}/`);
  await page.waitForSelector('#email');
  await axe(page, 'sign-in');
  await shot('sign-in');
  // Another address than the admin's: the lock is per address.
  const tryOnce = async () => {
    await page.fill('#email', 'clerk@alpha.example');
    await page.fill('#password', 'not the password');
    await page.click('form.sign-in button[type=submit]');
    await page.waitForSelector('#sign-in-error');
    const text = await page.textContent('#sign-in-error');
    await page.evaluate(() => document.getElementById('sign-in-error').remove());
    return text;
  };
  assert.equal(await tryOnce(), 'The e-mail address or the password is wrong.');
  let text;
  for (let i = 0; i < 6; i++) {
    text = await tryOnce();
    if (/locked/.test(text)) break;
  }
  assert.match(text, /^Too many failed sign-ins for this address\. It is locked until .+ \(about 15 minutes from now\), even with the right password\.$/);
  await page.fill('#email', 'clerk@alpha.example');
  await page.fill('#password', 'x');
  await page.click('form.sign-in button[type=submit]');
  await page.waitForSelector('#sign-in-error');
  await shot('sign-in-locked');
  await page.fill('#email', ADMIN.email);
  await page.fill('#password', ADMIN.password);
  await page.click('form.sign-in button[type=submit]');
  await page.waitForSelector('body.signed-in');
  await page.waitForFunction(() => document.getElementById('page-title')?.textContent === 'Overview');
  assert.match(await page.textContent('#account'), /alpha · admin@alpha\.example \(admin\)/);
});

test('the overview: its numbers are the API\'s', async () => {
  await open('#/', 'Overview');
  const { today, week } = await page.evaluate(async () => {
    const m = await import('/assets/js/pages/overview.js');
    return { today: m.midnight(0), week: m.midnight(6) };
  });
  const t = (await call('GET', `/api/v1/stats?since=${encodeURIComponent(today)}`)).body.data;
  const w = (await call('GET', `/api/v1/stats?since=${encodeURIComponent(week)}`)).body.data;
  const shown = Object.fromEntries(await page.$$eval('[data-stat]', (els) => els.map((e) => [e.dataset.stat, e.textContent])));
  const want = {
    'attention.failed': t.attention.failed,
    'attention.rejectedByPartner': t.attention.rejectedByPartner,
    'attention.acknowledgementOverdue': t.attention.acknowledgementOverdue,
    'attention.webhookDeliveriesFailed': t.attention.webhookDeliveriesFailed,
    'queues.toValidate': t.queues.toValidate,
    'queues.toRoute': t.queues.toRoute,
    'queues.awaitingAcknowledgement': t.queues.awaitingAcknowledgement,
    'webhooks.pending': t.webhooks.pending,
    'webhooks.retrying': t.webhooks.retrying,
    'webhooks.delivered': t.webhooks.delivered,
    'webhooks.failed': t.webhooks.failed,
  };
  for (const [s, n] of Object.entries(t.documents)) {
    want[`all.${s}`] = n;
    want[`today.${s}`] = t.created.documents[s];
    want[`week.${s}`] = w.created.documents[s];
  }
  for (const [k, v] of Object.entries(want)) assert.equal(shown[k], String(v), k);
  assert.equal(shown['attention.failed'], '1');
  assert.equal(shown['all.failed'], '1');
  assert.equal(shown['today.routed'], '2');
  assert.equal(shown['all.received'], '1');
  assert.equal(shown['all.total'], '4');
  assert.match(await page.textContent('.attention'), /PO-FAIL-7/);
  await axe(page, 'overview');
  await shot('overview');
});

test('documents: filtered by status, partner, type, direction and date, searched by reference', async () => {
  await open('#/documents', 'Documents');
  const rows = () => page.$$eval('main table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
  assert.equal((await rows()).length, 4);
  await axe(page, 'documents');
  await shot('documents');
  await page.selectOption('#f-status', 'failed');
  await page.click('.filters button[type=submit]');
  await page.waitForFunction(() => location.hash.includes('status=failed') && document.querySelectorAll('main table tbody tr').length === 1);
  assert.equal((await rows())[0][1], 'PO-FAIL-7');
  assert.equal((await rows())[0][5], 'Failed');
  await page.click('a.button[href="#/documents"]');
  await page.waitForFunction(() => document.querySelectorAll('main table tbody tr').length === 4);
  await page.fill('#f-reference', 'PO-10046');
  await page.press('#f-reference', 'Enter');
  await page.waitForFunction(() => location.hash.includes('reference=PO-10046') && document.querySelectorAll('main table tbody tr').length === 1);
  assert.deepEqual((await rows())[0].slice(1, 6), ['PO-10046', '850', 'acme-retail', 'Out', 'Routed']);
  await page.goto(`${base}/#/documents`);
  await page.waitForSelector('#f-direction');
  await page.selectOption('#f-direction', 'inbound');
  await page.selectOption('#f-partner', 'acme-retail');
  await page.selectOption('#f-type', '850');
  const today = await page.evaluate(() => {
    const d = new Date();
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  });
  await page.fill('#f-from', today);
  await page.fill('#f-to', today);
  await page.click('.filters button[type=submit]');
  await page.waitForFunction(() => location.hash.includes('direction=inbound') && document.querySelectorAll('main table tbody tr').length === 1);
  assert.equal((await rows())[0][4], 'In');
  assert.match(await page.textContent('#result-count'), /^1 document matching /);
  // The list is the API's, filter for filter.
  const api = (await call('GET', `/api/v1/transactions?direction=inbound&partnerId=acme-retail&documentTypeCode=850`)).body.data;
  assert.deepEqual(api.map((d) => d.documentId), [docs.inbound]);
});

test('a received document: the inspector highlights its diagnostic', async () => {
  await open(`#/documents/${docs.inbound}`, '850');
  await page.waitForSelector('#diagnostics tbody tr[data-diag]', { timeout: 20_000 });
  assert.match(await page.textContent('.x12-box .verdict'), /A partner would reject this X12: 1 error/);
  const cells = await page.locator('#diagnostics tbody tr').first().locator('td').allTextContents();
  assert.deepEqual(cells.slice(1, 3), ['error', 'SE01_COUNT']);
  await page.click('#diagnostics button.show-seg');
  const hl = page.locator('#raw .seg.hl');
  assert.equal(await hl.count(), 1);
  assert.equal(await hl.getAttribute('id'), 'seg-6');
  await page.waitForFunction(() => /^SE — Transaction Set Trailer$/.test(document.getElementById('inspector-title').textContent));
  assert.match(await page.textContent('#inspector-context'), /The SE01_COUNT diagnostic points at SE01\./);
  assert.equal(await page.textContent('#inspector-table tr.current th'), 'SE01DE 96');
  // Keyboard: the X12 takes focus and the arrows move between segments.
  await page.focus('#raw');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => /^ISA — Interchange Control Header$/.test(document.getElementById('inspector-title').textContent));
  await page.click('#diagnostics button.show-seg');
  await page.locator('#x12-h').scrollIntoViewIfNeeded();
  await axe(page, 'document');
  await shot('document-inspector');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('document');
});

test('a received document that breaks the partner\'s guide: the findings with their rules and 999 codes', async () => {
  // The demo order from the guided partner, its REF01 a code the guide does not
  // list (DP, IA): with the order number against the guide's BEG03 pattern, two findings.
  const edi = readFileSync(join(root, 'examples', 'x12', 'purchase-orders-850.edi'), 'utf8').replace('REF*DP*HARDWARE~', 'REF*ZZ*HARDWARE~');
  const r = await call('POST', '/api/v1/documents/inbound?partnerId=acme-guided', edi);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const id = r.body.data.transactions[0].documentId;
  const api = (await call('GET', `/api/v1/transactions/${id}`)).body.data.diagnostics;
  assert.deepEqual(api.guides, ['acme-retail-850']);
  const found = api.diagnostics.filter((d) => d.code.startsWith('GUIDE_'));
  assert.deepEqual(found.map((d) => d.code), ['GUIDE_PATTERN', 'GUIDE_CODE_NOT_USED']);
  await open(`#/documents/${id}`, '850');
  await page.waitForSelector('#guide-findings tbody tr', { timeout: 20_000 });
  assert.equal(await page.textContent('#guide-h'), 'Partner guide findings (2)');
  assert.equal(await page.textContent('#guide-findings .notice-error'),
    'The set breaks the partner\'s guide (acme-retail-850) in 2 places; a 999 answering it carries the implementation codes.');
  const rows = await page.$$eval('#guide-findings tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
  // The page shows what the API recorded, finding for finding.
  assert.deepEqual(rows.map((c) => [c[0], c[1], c[2], c[3], c[5]]),
    found.map((d) => [d.code, d.message, `#${d.segmentIndex} ${d.segmentId}`, String(d.element), d.guidePointer]));
  assert.deepEqual(rows.map((c) => c[2]), ['#3 BEG', '#4 REF']);
  assert.deepEqual(rows.map((c) => c[4]), ['IK304 8, IK403 I12', 'IK304 8, IK403 I6']);
  assert.deepEqual(rows.map((c) => c[5]), ['/segments/BEG/elements/BEG03/pattern', '/segments/REF/elements/REF01/codes']);
  assert.match(rows[0][1], /PO-2026-0042/);
  assert.match(rows[1][1], /"ZZ"/);
  // A document of a partner without guides has no such section.
  await open(`#/documents/${docs.inbound}`, '850');
  await page.waitForSelector('#diagnostics tbody tr[data-diag]', { timeout: 20_000 });
  assert.equal(await page.locator('#guide-findings').count(), 0);
  await open(`#/documents/${id}`, '850');
  await page.waitForSelector('#guide-findings tbody tr', { timeout: 20_000 });
  await page.locator('#guide-findings').scrollIntoViewIfNeeded();
  await axe(page, 'document with guide findings');
  await shot('guide-findings');
});

test('resend a failed document: confirmed, routed afterwards, said so in its timeline', async () => {
  partnerRefuses = false;
  await open(`#/documents/${docs.fail}`, '850');
  assert.match(await page.textContent('#failure'), /Why it failed: .*503/);
  await page.click('#resend');
  const dialog = page.locator('dialog[open]');
  await dialog.waitFor();
  assert.match(await dialog.textContent(), /Resend PO-FAIL-7 to acme-retail\?/);
  // Focus starts on Cancel: Enter alone never resends.
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Cancel');
  await axe(page, 'the confirm dialog');
  await shot('resend-confirm');
  await dialog.locator('button', { hasText: 'Resend' }).click();
  await page.waitForSelector('#notice .notice-ok');
  // The page looks again while the document is on its way and shows it routed.
  await page.waitForFunction(() => /^Routed/.test(document.querySelector('.doc-status')?.textContent || ''), null, { timeout: 15_000 });
  assert.equal(await statusOf(docs.fail), 'routed');
  assert.match(await page.textContent('.doc-status'), /^Routed to acme-retail$/);
  const timeline = await page.textContent('.timeline');
  assert.match(timeline, /resend 1 asked for by admin@alpha\.example/);
  assert.match(timeline, /\(resend 1\)/);
  assert.equal(await page.locator('#resend').count(), 1, 'routed: it can be resent again');
  const audit = await page.evaluate(() => fetch('/api/settings/audit').then((r) => r.json()));
  assert.equal(audit.data[0].action, 'document.resend');
  assert.equal(audit.data[0].actor.name, ADMIN.email);
});

test('partners: a new partner refused with the problem at its field, then fixed', async () => {
  await open('#/partners', 'Trading partners');
  await axe(page, 'partners');
  await page.click('#new-partner');
  await page.waitForSelector('#p-id');
  await page.fill('#p-id', 'globex');
  await page.fill('#p-name', 'Globex Corporation');
  await page.fill('#p-sender-qualifier', 'ZZ');
  await page.fill('#p-sender-id', 'WIDGETSUPPLY');
  await page.fill('#p-receiver-qualifier', 'QQ');
  await page.fill('#p-receiver-id', 'GLOBEX');
  await page.fill('#t-outbox', 'globex/outbox');
  await page.click('#save-partner');
  await page.waitForSelector('#p-receiver-qualifier[aria-invalid="true"]');
  const message = await page.locator('#p-receiver-qualifier').locator('xpath=..').locator('.field-error').textContent();
  assert.match(message, /"QQ" is not an interchange id qualifier/);
  assert.match(await page.textContent('#partner-problems'), /1 problem: nothing was saved\. Each is shown at its field\./);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'p-receiver-qualifier');
  await axe(page, 'partner form with a problem');
  await page.locator('#p-receiver-qualifier').scrollIntoViewIfNeeded();
  await shot('partner-field-error');
  await page.fill('#p-receiver-qualifier', 'ZZ');
  await page.click('#save-partner');
  await page.waitForFunction(() => location.hash === '#/partners/globex');
  await page.waitForSelector('#toggle-partner');
  assert.match(await page.textContent('h1'), /Trading partner globex/);
  const saved = await page.evaluate(() => fetch('/api/settings/partners/globex').then((r) => r.json()));
  assert.equal(saved.data.profile.receiver.qualifier, 'ZZ');
  assert.equal(saved.data.profile.name, 'Globex Corporation');
  // Disabled, confirmed: it takes no new documents.
  await page.click('#toggle-partner');
  await page.locator('dialog[open] button', { hasText: 'Disable the partner' }).click();
  await page.waitForFunction(() => /Disabled/.test(document.querySelector('.doc-head').textContent));
  const refused = await call('POST', '/api/v1/documents/outbound', { partnerId: 'globex', documentTypeCode: '850', payload: po('PO-G1') });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error.code, 'PARTNER_DISABLED');
  await open('#/partners', 'Trading partners');
  await shot('partners');
});

test('API keys: one created and shown once, used by an HTTP client, then revoked', async () => {
  await open('#/keys', 'API keys');
  await page.fill('#key-name', 'erp-test');
  await page.click('form.inline-form button[type=submit]');
  const dialog = page.locator('dialog[open]');
  await dialog.waitFor();
  const key = await dialog.locator('input.secret').inputValue();
  assert.match(key, /^x12k_[A-Za-z0-9_-]{43}$/);
  await dialog.locator('button', { hasText: 'Copy' }).click();
  await page.waitForFunction(() => /Copied|Selected/.test(document.querySelector('dialog[open] [role=status]').textContent));
  await axe(page, 'the new key');
  await shot('key-created');
  await dialog.locator('button', { hasText: 'I have copied it' }).click();
  // The key works for an HTTP client of the API...
  const ok = await fetch(`${base}/api/v1/transactions?limit=1`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(ok.status, 200);
  await page.waitForFunction(() => /erp-test/.test(document.querySelector('main table').textContent));
  await axe(page, 'keys');
  await shot('keys');
  // ...until it is revoked, confirmed in the page.
  await page.click('button[aria-label="Revoke the key erp-test"]');
  await page.locator('dialog[open] button', { hasText: 'Revoke the key' }).click();
  await page.waitForFunction(() => /revoked/.test(document.querySelector('main table').textContent));
  const refused = await fetch(`${base}/api/v1/transactions`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(refused.status, 401);
});

test('webhooks: an endpoint created, its secret shown once, a test delivery to a receiver in the test', async () => {
  await open('#/webhooks', 'Webhooks');
  await page.fill('#w-url', `${hooks.url}/x12kit`);
  await page.fill('#w-description', 'The ERP\'s receiver');
  await page.uncheck('#w-event-0');
  await page.click('form.webhook-form button[type=submit]');
  const dialog = page.locator('dialog[open]');
  await dialog.waitFor();
  const secret = await dialog.locator('input.secret').inputValue();
  assert.match(secret, /^whsec_/);
  await dialog.locator('button', { hasText: 'I have copied it' }).click();
  await page.waitForSelector('#send-test');
  await page.click('#send-test');
  await page.waitForSelector('#test-result .notice-ok');
  assert.match(await page.textContent('#test-result'), /Delivered: document\.routed to .*\/x12kit → delivered \(HTTP 200\)/);
  assert.match(await page.textContent('#test-result'), /\{"received":true\}/);
  // The receiver got one signed delivery, verifiable with the secret shown once.
  assert.equal(hooks.requests.length, 1);
  const got = hooks.requests[0];
  assert.equal(got.headers['x-service-test'], 'true');
  const ts = got.headers['x-service-timestamp'];
  const sig = createHmac('sha256', secret).update(`${ts}.${got.body}`).digest('hex');
  const sent = got.headers['x-service-signature'].split(',').map((s) => s.trim().replace(/^sha256=/, ''));
  assert.ok(sent.some((s) => s.length === sig.length && timingSafeEqual(Buffer.from(s), Buffer.from(sig))), 'signed with the secret');
  assert.equal(JSON.parse(got.body).event, 'document.routed');
  await axe(page, 'webhook endpoint');
  await shot('webhook-test');
  // The account's configured endpoint has its delivery log.
  await open('#/webhooks', 'Webhooks');
  await shot('webhooks');
  await page.click(`a[href^="#/webhooks/wh_"]:has-text("${receiver.url}")`);
  await page.waitForSelector('#log-h');
  assert.ok(await page.locator('#log-h ~ .table-wrap tbody tr').count() >= 6);
});

test('CSV intake: a bad row shown at its row and column, fixed in the page, three documents made and found', async () => {
  await open('#/upload', 'CSV intake');
  await page.selectOption('#u-type', '850');
  await page.selectOption('#u-partner', 'acme-retail');
  const header = '/purchaseOrderNumber,/shipTo/id,/shipTo/name,/lines/*/lineNumber,/lines/*/sku,/lines/*/quantity,/lines/*/unitPrice';
  const csv = [
    header,
    'PO-CSV-1,0003947268292,ACME Distribution Center,1,WID-100,120,9.25',
    'PO-CSV-1,,,2,WID-200,12x,13.79',
    'PO-CSV-2,0003947268292,ACME Distribution Center,1,WID-100,60,9.25',
    'PO-CSV-3,0003947268292,ACME Distribution Center,1,WID-300,6,1.50',
    '',
  ].join('\r\n');
  await page.setInputFiles('#u-file', { name: 'orders.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.waitForSelector('#u-problems');
  assert.match(await page.textContent('#u-problems'), /1 problem: nothing can be created/);
  assert.match(await page.textContent('#u-problems'), /Row 3, \/lines\/\*\/quantity \(\/lines\/1\/quantity\): expected a number/);
  const cell = page.locator('#csv-table input[data-row="3"][data-column="/lines/*/quantity"]');
  assert.equal(await cell.getAttribute('aria-invalid'), 'true');
  assert.equal(await cell.inputValue(), '12x');
  assert.equal(await page.locator('#u-submit').isDisabled(), true);
  assert.equal((await call('GET', '/api/v1/transactions?reference=PO-CSV-2')).body.data.length, 0, 'a dry run stores nothing');
  await axe(page, 'CSV intake with a problem');
  await cell.scrollIntoViewIfNeeded();
  await shot('upload-problem');
  // Fixed in the page, checked again, created.
  await cell.fill('12');
  await cell.press('Tab');
  await page.click('#u-check');
  await page.waitForSelector('#u-ready');
  assert.match(await page.textContent('#u-ready'), /Ready: 3 documents for acme-retail/);
  await page.click('#u-submit');
  await page.waitForSelector('#u-done');
  assert.match(await page.textContent('#u-done'), /Queued: 3 documents for acme-retail/);
  const made = await page.$$eval('#u-result table tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent));
  assert.deepEqual(made, ['PO-CSV-1', 'PO-CSV-2', 'PO-CSV-3']);
  await axe(page, 'CSV intake done');
  await shot('upload-done');
  // Found in the documents list by their references; the fixed quantity is in the document.
  for (const ref of ['PO-CSV-1', 'PO-CSV-2', 'PO-CSV-3']) {
    const found = (await call('GET', `/api/v1/transactions?reference=${ref}`)).body.data;
    assert.equal(found.length, 1, ref);
  }
  await page.click('#u-result a.button');
  await page.waitForFunction(() => location.hash.startsWith('#/documents?') && document.querySelectorAll('main table tbody tr').length >= 3);
  assert.match(await page.textContent('main table'), /PO-CSV-3/);
  const first = (await call('GET', '/api/v1/transactions?reference=PO-CSV-1')).body.data[0];
  const detail = (await call('GET', `/api/v1/transactions/${first.documentId}`)).body.data;
  assert.equal(detail.payload.lines[1].quantity, 12);
  // The same file again makes nothing twice.
  const again = await page.evaluate(async (text) => {
    const me = await fetch('/api/auth/me').then((r) => r.json());
    const r = await fetch('/api/upload?documentTypeCode=850&partnerId=acme-retail', {
      method: 'POST', headers: { 'Content-Type': 'text/csv', 'X-CSRF-Token': me.data.csrfToken }, body: text,
    });
    return { status: r.status, body: await r.json() };
  }, csv.replace('12x', '12'));
  assert.equal(again.status, 200);
  assert.equal(again.body.data.replayed, true);
});

test('users and the audit log', async () => {
  await open('#/users', 'Users');
  await page.fill('#u-email', 'ops@alpha.example');
  await page.click('form.inline-form button[type=submit]');
  const dialog = page.locator('dialog[open]');
  await dialog.waitFor();
  assert.match(await dialog.locator('input.secret').inputValue(), /.{12,}/);
  await dialog.locator('button', { hasText: 'I have copied it' }).click();
  await page.waitForFunction(() => /ops@alpha\.example/.test(document.querySelector('main table').textContent));
  await axe(page, 'users');
  await shot('users');
  await open('#/audit', 'Audit log');
  const text = await page.textContent('main table');
  for (const action of ['user.create', 'upload.create', 'webhook.create', 'key.revoke', 'key.create', 'partner.update', 'partner.create', 'document.resend']) {
    assert.match(text, new RegExp(action.replace('.', '\\.')), action);
  }
  await axe(page, 'audit');
  await shot('audit');
});

test('on a phone: the overview and a document fit the screen', async () => {
  const phone = await context.newPage();
  watch(phone);
  await phone.setViewportSize({ width: 390, height: 844 });
  for (const [hash, name] of [['#/', 'phone-overview'], [`#/documents/${docs.inbound}`, 'phone-document'], ['#/documents', 'phone-documents']]) {
    await phone.goto(`${base}/${hash}`);
    await phone.waitForFunction(() => document.getElementById('page-title') && !document.querySelector('main [role=status].muted'));
    if (name === 'phone-document') await phone.waitForSelector('#diagnostics tbody tr[data-diag]');
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than the phone`);
    await axe(phone, name);
    await phone.screenshot({ path: join(shots, `${name}.png`) });
  }
  await phone.close();
});

test('an expired session goes back to sign-in, then to the page the person was on', async () => {
  const short = await startServer({ partnerUrl: partner.url, hookUrl: receiver.url, idleSeconds: 2 });
  try {
    const p = await context.newPage();
    watch(p);
    await p.goto(`${short.base}/#/keys`);
    await p.waitForSelector('#email');
    await p.fill('#email', ADMIN.email);
    await p.fill('#password', ADMIN.password);
    await p.click('form.sign-in button[type=submit]');
    await p.waitForFunction(() => location.hash === '#/keys' && document.getElementById('page-title')?.textContent === 'API keys');
    await p.evaluate(() => { location.hash = '#/documents?status=failed'; });
    await p.waitForFunction(() => document.getElementById('page-title')?.textContent === 'Documents');
    await new Promise((r) => setTimeout(r, 2500));
    await p.click('#nav a[href="#/webhooks"]');
    await p.waitForSelector('#email');
    assert.match(await p.textContent('#sign-in-status'), /Your session has expired/);
    assert.equal(await p.evaluate(() => location.hash), `#/sign-in?next=${encodeURIComponent('/webhooks')}`);
    await p.fill('#email', ADMIN.email);
    await p.fill('#password', ADMIN.password);
    await p.click('form.sign-in button[type=submit]');
    await p.waitForFunction(() => location.hash === '#/webhooks' && document.getElementById('page-title')?.textContent === 'Webhooks');
    await p.close();
  } finally {
    short.stop();
  }
});
