// The page: input (drop, pick, paste, samples), then the worker's results:
// verdict, outline, diagnostics (click to highlight the segment), raw text
// with the inspector, the acknowledgement, the JSON and the mapped documents.
// Every X12 decision is the core's (through worker.js); this file only shows.
// The raw text, diagnostics and segment panel are the inspector (inspector.js).
import { createInspector, el } from './inspector.js';

const $ = (id) => document.getElementById(id);
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
// Offline once loaded, reload included: sw.js keeps a copy of the page's files.
// (Not over file://, and not where the browser has no service workers.)
if ('serviceWorker' in navigator && location.protocol !== 'file:') {
  navigator.serviceWorker.register(new URL('./sw.js', import.meta.url)).catch((e) => console.warn(`offline copy unavailable: ${e.message}`));
}
let current = null; // the last result
let lastInput = null; // {input, name} of the last check, checked again when the guides change
let describeSeq = 0;
const pendingDescribe = new Map();
let guides = []; // [{name, guide}]: the partners' guides loaded, checked by the core
let guideSeq = 0;
const pendingGuides = new Map();

function status(text) {
  $('status').textContent = text;
}

function download(name, text, type = 'text/plain') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// ------------------------------------------------------------------ input
function analyze(input, name) {
  lastInput = { input, name };
  $('results').hidden = true;
  $('progress-box').hidden = false;
  $('progress').value = 0;
  $('progress-label').textContent = `Reading ${name}…`;
  status(`Checking ${name}…`);
  const msg = { type: 'analyze', name, structure: $('structure').checked, ackKind: $('ack-kind').value, guides: guides.map((g) => g.guide) };
  if (input instanceof Blob) msg.file = input;
  else msg.bytes = input;
  worker.postMessage(msg);
}

$('file').addEventListener('change', () => {
  const f = $('file').files[0];
  if (f) analyze(f, f.name);
});
const drop = $('drop');
for (const t of ['dragenter', 'dragover']) {
  document.addEventListener(t, (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
}
document.addEventListener('dragleave', (e) => {
  if (!e.relatedTarget) drop.classList.remove('over');
});
document.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const f = e.dataTransfer.files[0];
  if (f) analyze(f, f.name);
});
$('paste-go').addEventListener('click', () => {
  const text = $('paste').value;
  if (!text.trim()) return status('Paste some X12 first.');
  analyze(new TextEncoder().encode(text), 'pasted text');
});
// ------------------------------------------------------------------ partners' guides
function guideStatus(text, bad = false, problems = []) {
  const box = $('guide-status');
  box.className = 'guide-status' + (bad ? ' bad' : '');
  box.replaceChildren(text);
  if (problems.length) box.append(el('ul', {}, ...problems.map((p) => el('li', {}, el('code', {}, p.pointer), ` ${p.message}`))));
}

/** The core's answer on a list of guides: null when usable, else the error (INVALID_GUIDE with its details). */
function checkGuides(list) {
  return new Promise((resolve) => {
    const id = ++guideSeq;
    pendingGuides.set(id, resolve);
    worker.postMessage({ type: 'guides', id, guides: list.map((g) => g.guide) });
  });
}

function showGuides() {
  const ul = $('guides');
  ul.replaceChildren(...guides.map((g, i) => el('li', {},
    `${g.guide.id} — ${g.guide.documentType} ${g.guide.version} (${g.name})`,
    el('button', { type: 'button', 'aria-label': `Remove the guide ${g.guide.id}`, onclick: () => removeGuide(i) }, 'Remove'))));
}

function recheck() {
  if (lastInput) analyze(lastInput.input, lastInput.name);
}

async function addGuides(files) {
  const added = [];
  for (const { name, text } of files) {
    let guide;
    try {
      guide = JSON.parse(text);
    } catch (e) {
      return guideStatus(`${name} is not JSON: ${e.message}`, true);
    }
    added.push({ name, guide });
  }
  const error = await checkGuides([...guides, ...added]);
  if (error) {
    // Pointers are into the list given: /guides/<index>/…
    return guideStatus(`Could not use ${added.map((g) => g.name).join(', ')}: ${error.code}: ${error.message}`, true, error.details);
  }
  guides = [...guides, ...added];
  showGuides();
  guideStatus(`Loaded ${added.map((g) => `${g.guide.id} (${g.guide.documentType} ${g.guide.version})`).join(', ')}.`);
  recheck();
}

function removeGuide(i) {
  const [g] = guides.splice(i, 1);
  showGuides();
  guideStatus(`Removed ${g.guide.id}.`);
  recheck();
}

$('guide-file').addEventListener('change', async () => {
  const files = [...$('guide-file').files];
  $('guide-file').value = '';
  await addGuides(await Promise.all(files.map(async (f) => ({ name: f.name, text: await f.text() }))));
});
const guideSample = fetch(new URL('./samples/acme-retail-850.guide.json', import.meta.url)).then((r) => r.text());
$('sample-guide').addEventListener('click', async () => {
  try {
    await addGuides([{ name: 'acme-retail-850.guide.json', text: await guideSample }]);
  } catch (e) {
    guideStatus(`Could not load the sample guide: ${e.message}`, true);
  }
});

// The samples are fetched with the page (842 bytes each), so that they load offline too.
const samples = Object.fromEntries(['850-valid.x12', '850-wrong-se01.x12'].map((f) => [
  f, fetch(new URL(`./samples/${f}`, import.meta.url)).then((r) => r.arrayBuffer()),
]));
async function sample(file) {
  try {
    analyze(new Uint8Array(await samples[file]), file);
  } catch (e) {
    status(`Could not load the sample ${file}: ${e.message}`);
  }
}
$('sample-valid').addEventListener('click', () => sample('850-valid.x12'));
$('sample-bad').addEventListener('click', () => sample('850-wrong-se01.x12'));
$('ack-kind').addEventListener('change', () => {
  if (current) worker.postMessage({ type: 'ack', kind: $('ack-kind').value });
});
$('ack-download').addEventListener('click', () => {
  if (!current || !current.ack.text) return;
  const kind = $('ack-kind').value;
  download(`${current.name.replace(/\.[^.]*$/, '')}.${kind === 'auto' ? 'ack' : kind}.x12`, current.ack.text);
});
$('json-download').addEventListener('click', () => {
  if (current && current.parseJson) download(`${current.name.replace(/\.[^.]*$/, '')}.json`, current.parseJson, 'application/json');
});

// ------------------------------------------------------------------ files of any size, set by set
let setsSeq = 0;
const count = (n) => n.toLocaleString('en-US');

$('sets-file').addEventListener('change', () => {
  const f = $('sets-file').files[0];
  if (!f) return;
  const id = ++setsSeq;
  $('sets-summary').hidden = true;
  $('split-box').hidden = true;
  $('sets-codes').tBodies[0].replaceChildren();
  $('sets-progress-box').hidden = false;
  $('sets-progress').value = 0;
  $('sets-progress-label').textContent = `Reading ${f.name}…`;
  $('sets-status').textContent = `Reading ${f.name} (${(f.size / 1e6).toFixed(1)} MB) a set at a time…`;
  $('sets-stop').disabled = false;
  $('sets-file').value = '';
  worker.postMessage({ type: 'sets', id, file: f });
});
$('sets-stop').addEventListener('click', () => worker.postMessage({ type: 'sets-stop' }));
$('split-file').addEventListener('change', () => {
  const f = $('split-file').files[0];
  if (!f) return;
  const maxSets = Math.max(1, Math.floor(Number($('split-sets').value) || 1000));
  const id = ++setsSeq;
  $('split-parts').replaceChildren();
  $('split-pager').hidden = true;
  splitView = { from: 0, shown: 0, total: 0 };
  $('split-box').hidden = false;
  $('split-note').textContent = `Splitting into parts of ${count(maxSets)} sets…`;
  $('sets-summary').hidden = true;
  $('sets-progress-box').hidden = false;
  $('sets-progress').value = 0;
  $('sets-progress-label').textContent = `Reading ${f.name}…`;
  $('sets-status').textContent = `Splitting ${f.name} (${(f.size / 1e6).toFixed(1)} MB) into parts of ${count(maxSets)} sets…`;
  $('sets-stop').disabled = false;
  $('split-file').value = '';
  worker.postMessage({ type: 'split', id, file: f, maxSets });
});

// The parts of a split, a page at a time: the worker keeps each part's
// recipe (where its sets are in the file) and makes a part again when its
// button is pressed; the page lists PAGE of them at a time.
const PAGE = 50;
let splitView = { from: 0, shown: 0, total: 0 };

function askParts(from) {
  splitView.from = Math.max(0, Math.min(from, Math.max(0, splitView.total - 1)));
  splitView.from -= splitView.from % PAGE;
  worker.postMessage({ type: 'split-list', id: setsSeq, from: splitView.from, count: PAGE });
}

function showRange() {
  const { from, shown, total } = splitView;
  $('split-range').textContent = shown ? `Parts ${count(from + 1)}–${count(from + shown)} of ${count(total)}` : '';
}

function showParts(m) {
  splitView.total = Math.max(splitView.total, m.total);
  if (m.from !== splitView.from) return; // an older page's answer
  splitView.shown = m.list.length;
  $('split-parts').replaceChildren(...m.list.map((p) => el('li', {},
    el('button', { type: 'button', 'data-n': String(p.n) }, `Download part ${count(p.n)}`),
    `${p.name}, ${count(p.sets)} set${p.sets === 1 ? '' : 's'}, ${(p.size / 1e3).toFixed(1)} kB`)));
  const total = splitView.total;
  $('split-pager').hidden = total === 0;
  showRange();
  $('split-prev').disabled = m.from === 0;
  $('split-next').disabled = m.from + PAGE >= total;
  $('split-goto').max = String(total);
}

$('split-prev').addEventListener('click', () => askParts(splitView.from - PAGE));
$('split-next').addEventListener('click', () => askParts(splitView.from + PAGE));
$('split-goto').addEventListener('change', () => {
  const n = Math.floor(Number($('split-goto').value));
  if (n >= 1) askParts(n - 1);
});
$('split-parts').addEventListener('click', (ev) => {
  const b = ev.target.closest('button[data-n]');
  if (!b || b.disabled) return;
  b.disabled = true;
  b.textContent = `Making part ${count(Number(b.dataset.n))}…`;
  worker.postMessage({ type: 'split-part', id: setsSeq, n: Number(b.dataset.n) });
});

/** The button of part `n` (when its page shows), back to its label. */
function partButton(n) {
  const b = $('split-parts').querySelector(`button[data-n="${n}"]`);
  if (b) {
    b.disabled = false;
    b.textContent = `Download part ${count(n)}`;
  }
  return b;
}

/** The sets-by-type table from `[[type, [sets, withErrors]], …]`. */
function showSetTypes(types) {
  $('sets-types').tBodies[0].replaceChildren(...types.sort((a, b) => b[1][0] - a[1][0]).map(([type, [n, bad]]) =>
    el('tr', {}, el('td', {}, type), el('td', { class: 'n' }, count(n)), el('td', { class: 'n' }, count(bad)))));
}

function setsMessage(m) {
  if (m.id !== setsSeq) return; // an earlier file's
  if (m.type === 'split-list') {
    showParts(m);
  } else if (m.type === 'split-file') {
    partButton(m.n);
    const url = URL.createObjectURL(m.blob);
    const a = el('a', { href: url, download: m.name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } else if (m.type === 'split-part-error') {
    partButton(m.n);
    $('split-note').textContent = `Could not make part ${count(m.n)} again: ${m.error.code ? m.error.code + ': ' : ''}${m.error.message} (the file may have changed since it was split; split it again).`;
  } else if (m.type === 'split-result') {
    $('sets-progress-box').hidden = true;
    $('sets-stop').disabled = true;
    $('sets-status').textContent = `${m.name}: ${m.stopped ? 'stopped after' : 'split'} ${(m.read / 1e6).toFixed(1)} MB into ${count(m.parts)} part${m.parts === 1 ? '' : 's'} holding ${count(m.sets)} transaction sets; ${count(m.errors)} error${m.errors === 1 ? '' : 's'}, ${count(m.warnings)} warning${m.warnings === 1 ? '' : 's'} reading it.`;
    $('split-note').textContent = m.parts
      ? `Every part can be downloaded${m.stopped ? ' (those split before it stopped)' : ''}: each is made again from the file when you ask for it, so keep the file where it is. The page holds where each part's sets are in the file, not the parts.`
      : 'No part: the file holds no transaction set.';
    splitView.total = m.parts;
    askParts(splitView.from);
  } else if (m.type === 'sets-progress') {
    const pct = m.total ? Math.floor((m.done / m.total) * 100) : 100;
    $('sets-progress').value = pct;
    $('sets-progress-label').textContent = `Read ${(m.done / 1e6).toFixed(1)} of ${(m.total / 1e6).toFixed(1)} MB (${pct}%): ${count(m.sets)} sets${m.parts !== undefined ? ` in ${count(m.parts)} parts` : ''}`;
    if (m.parts !== undefined) {
      // The first page fills as the parts come; the pager counts them.
      const grew = m.parts > splitView.total;
      splitView.total = m.parts;
      if (grew && splitView.shown < PAGE) askParts(splitView.from);
      else if (grew) $('split-next').disabled = false;
      showRange();
      return;
    }
    $('sets-summary').hidden = false;
    showSetTypes(m.types);
    const codes = $('sets-codes').tBodies[0];
    if (!codes.rows.length) codes.replaceChildren(el('tr', {}, el('td', { colspan: '4' }, 'counted when the whole file has been read')));
  } else if (m.type === 'sets-result') {
    $('sets-progress-box').hidden = true;
    $('sets-stop').disabled = true;
    $('sets-summary').hidden = false;
    showSetTypes(m.types);
    const errors = m.codes.filter((c) => c.severity === 'error').reduce((a, c) => a + c.count, 0);
    const warnings = m.codes.filter((c) => c.severity === 'warning').reduce((a, c) => a + c.count, 0);
    $('sets-status').textContent = `${m.name}: ${m.stopped ? 'stopped after' : 'read'} ${(m.read / 1e6).toFixed(1)} MB, ${count(m.sets)} transaction sets; ${count(errors)} error${errors === 1 ? '' : 's'}, ${count(warnings)} warning${warnings === 1 ? '' : 's'}${m.stopped ? ' so far' : ''}.`;
    $('sets-codes').tBodies[0].replaceChildren(...m.codes.map((c) => el('tr', {},
      el('td', {}, el('code', {}, c.code)), el('td', {}, c.severity), el('td', { class: 'n' }, count(c.count)),
      el('td', {}, c.first.segmentIndex !== undefined ? `segment ${count(c.first.segmentIndex)}` : c.first.offset !== undefined ? `byte ${count(c.first.offset)}` : '—'))));
    if (!m.codes.length) $('sets-codes').tBodies[0].replaceChildren(el('tr', {}, el('td', { colspan: '4' }, 'none')));
  } else if (m.type === 'sets-error') {
    $('sets-progress-box').hidden = true;
    $('sets-stop').disabled = true;
    $('sets-status').textContent = `Could not read the file: ${m.error.code ? m.error.code + ': ' : ''}${m.error.message}`;
  }
}

// ------------------------------------------------------------------ worker messages
worker.onmessage = (ev) => {
  const m = ev.data;
  if (m.type.startsWith('sets-') || m.type.startsWith('split-')) {
    setsMessage(m);
  } else if (m.type === 'progress') {
    const pct = m.total ? Math.round((m.done / m.total) * 100) : 100;
    $('progress').value = pct;
    $('progress-label').textContent = `Reading… ${(m.done / 1e6).toFixed(1)} of ${(m.total / 1e6).toFixed(1)} MB (${pct}%)`;
  } else if (m.type === 'result') {
    show(m);
  } else if (m.type === 'ack') {
    current.ack = m.ack;
    showAck();
  } else if (m.type === 'guides') {
    const f = pendingGuides.get(m.id);
    pendingGuides.delete(m.id);
    if (f) f(m.error);
  } else if (m.type === 'describe') {
    const f = pendingDescribe.get(m.id);
    pendingDescribe.delete(m.id);
    if (f) f(m);
  } else if (m.type === 'error') {
    $('progress-box').hidden = true;
    status(`Could not check the input: ${m.error.code ? m.error.code + ': ' : ''}${m.error.message}`);
  }
};
worker.onerror = (e) => status(`The checker failed to start: ${e.message}`);

/** `{info, error}`: the core's description (or null), or why it cannot describe the segment. */
function describe(set, version, segment) {
  return new Promise((resolve) => {
    const id = ++describeSeq;
    pendingDescribe.set(id, resolve);
    worker.postMessage({ type: 'describe', id, set, version, segment });
  });
}

const inspector = createInspector({
  raw: $('raw'),
  title: $('inspector-title'),
  context: $('inspector-context'),
  table: $('inspector-table'),
  note: $('raw-note'),
  diagnostics: $('diagnostics'),
  count: $('diag-count'),
  describe,
  status,
});

// ------------------------------------------------------------------ results
function show(r) {
  current = r;
  current.parse = r.parseJson ? JSON.parse(r.parseJson) : null;
  $('progress-box').hidden = true;
  $('results').hidden = false;
  const v = r.validation;
  const verdict = $('verdict');
  verdict.className = 'verdict ' + (v.valid ? 'ok' : 'bad');
  verdict.textContent = v.valid
    ? `${r.name}: valid — ${v.warningCount} warning${v.warningCount === 1 ? '' : 's'}`
    : `${r.name}: a partner would reject it — ${v.errorCount} error${v.errorCount === 1 ? '' : 's'}, ${v.warningCount} warning${v.warningCount === 1 ? '' : 's'}`;
  showOutline(r);
  showGuideFindings(v);
  inspector.show({
    segments: r.segments,
    total: r.total,
    full: r.full,
    diagnostics: v.diagnostics,
    sep: r.parse && r.parse.interchanges[0] ? r.parse.interchanges[0].delimiters.element : '*',
  });
  showAck();
  showJson(r);
  showDocuments(r);
  status(`Checked ${r.name} (${r.size.toLocaleString()} bytes): ${v.valid ? 'valid' : 'invalid'}, ${v.diagnostics.length} diagnostic${v.diagnostics.length === 1 ? '' : 's'}.`);
}

/** The guides' findings (`GUIDE_*` diagnostics), with the 999 code and the rule each breaks. */
function showGuideFindings(v) {
  const section = $('guide-section');
  section.hidden = !guides.length;
  if (!guides.length) return;
  const found = v.diagnostics.filter((d) => d.code.startsWith('GUIDE_'));
  $('guide-count').textContent = `(${found.length})`;
  const names = guides.map((g) => g.guide.id).join(', ');
  $('guide-summary').textContent = found.length
    ? `The sets break ${names} in ${found.length} place${found.length === 1 ? '' : 's'}; the 999 carries the implementation codes.`
    : `Every set the guides name (${names}) keeps them.`;
  const body = $('guide-findings').tBodies[0];
  body.replaceChildren(...found.map((d) => {
    const a = d.ack || {};
    const code = [a.ik3 && `IK304 ${a.ik3}`, a.ik4 && `IK403 ${a.ik4}`].filter(Boolean).join(', ');
    return el('tr', { class: `sev-${d.severity}` },
      el('td', {}, el('code', {}, d.code)),
      el('td', {}, d.message),
      el('td', {}, d.segmentIndex !== undefined ? `#${d.segmentIndex} ${d.segmentId || ''}` : ''),
      el('td', {}, d.element ?? ''),
      el('td', {}, code),
      el('td', { class: 'guide-rule' }, d.guidePointer || ''));
  }));
}

function statusSpan(s) {
  const cls = s === 'accepted' ? 'status-accepted' : s === 'rejected' ? 'status-rejected' : 'status-other';
  return el('span', { class: cls }, s);
}

/** The outline, as `x12kit inspect` prints it, with each envelope's outcome. */
function showOutline(r) {
  const out = $('outline');
  out.replaceChildren();
  const v = r.validation;
  const p = r.parse;
  const MAX_SET_LINES = 1000;
  let groups = 0, sets = 0, setLines = 0;
  v.interchanges.forEach((ic, i) => {
    const d = p && p.interchanges[i] && p.interchanges[i].delimiters;
    const delims = d ? `  delimiters element ${d.element} component ${d.component ?? 'none'} repetition ${d.repetition ?? 'none'} segment ${JSON.stringify(d.segment).slice(1, -1)}` : '';
    out.append(`interchange ${ic.controlNumber}  ${ic.senderQualifier}:${ic.senderId} -> ${ic.receiverQualifier}:${ic.receiverId}  date ${ic.date} ${ic.time}  version ${ic.version}  usage ${ic.usage}${delims}  `, statusSpan(ic.status), '\n');
    for (const g of ic.groups || []) {
      groups++;
      const txs = g.transactions || [];
      sets += txs.length;
      const kinds = {};
      for (const t of txs) kinds[t.type] = (kinds[t.type] || 0) + 1;
      const mix = Object.entries(kinds).map(([k, n]) => `${k} x${n}`).join(', ');
      out.append(`  group ${g.controlNumber}  ${g.functionalId}  ${g.senderCode} -> ${g.receiverCode}  version ${g.version}  ${txs.length} set${txs.length === 1 ? '' : 's'} (${mix})  `, statusSpan(g.status), '\n');
      for (const t of txs) {
        if (setLines++ < MAX_SET_LINES) out.append(`    set ${t.type} ${t.controlNumber}  ${t.segmentCount} segments  `, statusSpan(t.status), '\n');
      }
      if (setLines > MAX_SET_LINES && txs.length) out.append(`    … (the outline lists the first ${MAX_SET_LINES} sets)\n`);
    }
  });
  const ni = v.interchanges.length;
  out.append(`total: ${ni} interchange${ni === 1 ? '' : 's'}, ${groups} group${groups === 1 ? '' : 's'}, ${sets} transaction set${sets === 1 ? '' : 's'}, ${r.total.toLocaleString()} segments${r.full ? '' : ' in the first MB'}, ${r.size.toLocaleString()} bytes\n`);
}

function showAck() {
  const a = current.ack;
  $('ack').textContent = a.text !== undefined ? (a.text || '(nothing to acknowledge)') : `${a.error.code}: ${a.error.message}`;
  $('ack-download').disabled = !a.text;
}

function showJson(r) {
  const box = $('json');
  if (r.parseJson) {
    const pretty = JSON.stringify(r.parse, null, 2);
    box.textContent = pretty.length > 2e6 ? pretty.slice(0, 2e6) + '\n… (truncated; download for the whole JSON)' : pretty;
    $('json-download').disabled = false;
    $('json-note').textContent = `${(r.parseJson.length / 1e3).toFixed(1)} kB`;
  } else {
    box.textContent = '';
    $('json-download').disabled = true;
    $('json-note').textContent = 'The file is too large for the whole parse result in the page; it was validated as a stream.';
  }
}

/** The mapped documents, shown together once every set's name is known (the
 * names come from the worker); `#documents` then has `data-ready`. */
async function showDocuments(r) {
  const box = $('documents');
  box.replaceChildren();
  delete box.dataset.ready;
  const shown = current;
  const items = [];
  for (const ic of r.parse ? r.parse.interchanges : []) {
    for (const g of ic.groups) {
      for (const t of g.transactions) {
        if (t.document === undefined) continue;
        const first = t.segments[0] && t.segments[0].id;
        const info = first ? (await describe(t.type, g.header.version, first)).info : null;
        items.push(el('details', { class: 'document' },
          el('summary', {}, `${t.type} ${t.controlNumber}${info ? ' — ' + info.setName : ''}`),
          el('pre', { class: 'block' }, JSON.stringify(t.document, null, 2))));
      }
    }
  }
  if (current !== shown) return; // another file was checked meanwhile
  if (!items.length) items.push(el('p', { class: 'hint' }, 'No set of a type x12kit maps in this input.'));
  box.replaceChildren(...items);
  box.dataset.ready = '';
}
