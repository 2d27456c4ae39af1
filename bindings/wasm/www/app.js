// The page: input (drop, pick, paste, samples), then the worker's results:
// verdict, outline, diagnostics (click to highlight the segment), raw text
// with the inspector, the acknowledgement, the JSON and the mapped documents.
// Every X12 decision is the core's (through worker.js); this file only shows.

const $ = (id) => document.getElementById(id);
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
// Offline once loaded, reload included: sw.js keeps a copy of the page's files.
// (Not over file://, and not where the browser has no service workers.)
if ('serviceWorker' in navigator && location.protocol !== 'file:') {
  navigator.serviceWorker.register(new URL('./sw.js', import.meta.url)).catch((e) => console.warn(`offline copy unavailable: ${e.message}`));
}
let current = null; // the last result
let selected = -1; // index into current.segments
let describeSeq = 0;
const pendingDescribe = new Map();

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

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
  $('results').hidden = true;
  $('progress-box').hidden = false;
  $('progress').value = 0;
  $('progress-label').textContent = `Reading ${name}…`;
  status(`Checking ${name}…`);
  const msg = { type: 'analyze', name, structure: $('structure').checked, ackKind: $('ack-kind').value };
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

// ------------------------------------------------------------------ worker messages
worker.onmessage = (ev) => {
  const m = ev.data;
  if (m.type === 'progress') {
    const pct = m.total ? Math.round((m.done / m.total) * 100) : 100;
    $('progress').value = pct;
    $('progress-label').textContent = `Reading… ${(m.done / 1e6).toFixed(1)} of ${(m.total / 1e6).toFixed(1)} MB (${pct}%)`;
  } else if (m.type === 'result') {
    show(m);
  } else if (m.type === 'ack') {
    current.ack = m.ack;
    showAck();
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
  showDiagnostics(v.diagnostics);
  showRaw(r);
  showAck();
  showJson(r);
  showDocuments(r);
  status(`Checked ${r.name} (${r.size.toLocaleString()} bytes): ${v.valid ? 'valid' : 'invalid'}, ${v.diagnostics.length} diagnostic${v.diagnostics.length === 1 ? '' : 's'}.`);
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

function showDiagnostics(list) {
  $('diag-count').textContent = `(${list.length})`;
  const body = $('diagnostics').tBodies[0];
  body.replaceChildren();
  if (!list.length) {
    body.append(el('tr', {}, el('td', { colspan: 7 }, 'None: every rule passed.')));
    return;
  }
  list.forEach((d, i) => {
    const has = d.segmentIndex !== undefined;
    const btn = has
      ? el('button', { type: 'button', class: 'show-seg', 'aria-label': `Show segment ${d.segmentIndex} (${d.segmentId || ''}) for ${d.code}`, onclick: () => highlight(d.segmentIndex, i) }, 'Show')
      : '—';
    body.append(el('tr', { 'data-diag': i, 'data-segment': has ? d.segmentIndex : '' },
      el('td', {}, btn),
      el('td', { class: `sev-${d.severity}` }, d.severity),
      el('td', {}, el('code', {}, d.code)),
      el('td', {}, d.message),
      el('td', {}, has ? `#${d.segmentIndex} ${d.segmentId || ''}` : ''),
      el('td', {}, d.element ?? ''),
      el('td', {}, d.offset ?? '')));
  });
}

/** The raw text: one span per segment (the first RAW_SEGMENTS), separators dimmed. */
function showRaw(r) {
  const raw = $('raw');
  raw.replaceChildren();
  selected = -1;
  const errorSegs = new Set(r.validation.diagnostics.filter((d) => d.severity === 'error').map((d) => d.segmentIndex));
  const frag = document.createDocumentFragment();
  const sep = r.parse && r.parse.interchanges[0] ? r.parse.interchanges[0].delimiters.element : '*';
  r.segments.forEach((s, i) => {
    const span = el('span', { class: 'seg' + (errorSegs.has(s.index) ? ' has-error' : ''), id: `seg-${s.index}`, 'data-i': i });
    const cut = s.text.indexOf(sep);
    if (cut > 0) {
      span.append(el('span', { class: 'id' }, s.text.slice(0, cut)), s.text.slice(cut));
    } else span.append(s.text);
    span.append(el('span', { class: 'sep' }, s.terminator));
    frag.append(span, '\n');
  });
  raw.append(frag);
  $('raw-note').textContent = r.segments.length < r.total
    ? `Showing the first ${r.segments.length.toLocaleString()} of ${r.total.toLocaleString()} segments${r.full ? '' : ' of the first MB'}.`
    : '';
  $('inspector-title').textContent = 'No segment selected';
  $('inspector-context').textContent = '';
  $('inspector-table').tBodies[0].replaceChildren();
}

const raw = $('raw');
raw.addEventListener('click', (e) => {
  const s = e.target.closest('.seg');
  if (s) select(Number(s.dataset.i));
});
raw.addEventListener('mouseover', (e) => {
  const s = e.target.closest('.seg');
  if (s) inspect(Number(s.dataset.i));
});
raw.addEventListener('mouseleave', () => {
  if (selected >= 0) inspect(selected);
});
raw.addEventListener('keydown', (e) => {
  if (!current || !current.segments.length) return;
  let i = selected;
  if (e.key === 'ArrowDown') i = Math.min(current.segments.length - 1, i + 1);
  else if (e.key === 'ArrowUp') i = Math.max(0, i - 1);
  else if (e.key === 'Home') i = 0;
  else if (e.key === 'End') i = current.segments.length - 1;
  else return;
  e.preventDefault();
  select(i);
});

function select(i) {
  const raw = $('raw');
  raw.querySelector('.seg.selected')?.classList.remove('selected');
  selected = i;
  const span = raw.querySelector(`.seg[data-i="${i}"]`);
  if (span) {
    span.classList.add('selected');
    span.scrollIntoView({ block: 'nearest' });
  }
  inspect(i);
}

/** Highlights the segment of a diagnostic and scrolls to it. */
function highlight(segmentIndex, diag) {
  const raw = $('raw');
  for (const s of raw.querySelectorAll('.seg.hl')) s.classList.remove('hl');
  for (const r of document.querySelectorAll('#diagnostics tr.current')) r.classList.remove('current');
  document.querySelector(`#diagnostics tr[data-diag="${diag}"]`)?.classList.add('current');
  const span = document.getElementById(`seg-${segmentIndex}`);
  if (!span) {
    status(`Segment ${segmentIndex} is beyond the part of the file shown.`);
    return;
  }
  span.classList.add('hl');
  span.scrollIntoView({ block: 'center' });
  const d = current.validation.diagnostics[diag];
  pointed = { segmentIndex, element: d && d.element, code: d && d.code };
  select(Number(span.dataset.i));
  status(`Segment ${segmentIndex} (${current.segments[Number(span.dataset.i)].id}) highlighted.`);
}

/** What the declaration says of an element besides its name: type, lengths, use, payload field. */
function declared(d) {
  if (d.type === 'composite') return `composite${d.mandatory ? ' · mandatory' : ''}`;
  const len = d.min === d.max ? `${d.min}` : `${d.min}–${d.max}`;
  const parts = [`${d.type} ${len}`, d.mandatory ? 'mandatory' : 'optional'];
  if (d.field) parts.push(`document field ${d.field}`);
  return parts.join(' · ');
}

/**
 * The Meaning cell: what the code means (the core's dictionary, `meanings`),
 * or whether the value is among the codes the declaration knows.
 */
function codeMeaning(d, value) {
  if (!d || !value) return '';
  const known = (d.meanings || []).find((m) => m.code === value);
  if (known) return known.meaning;
  const allowed = d.codes || d.knownCodes;
  if (!allowed || !allowed.length) return '';
  return d.codes
    ? `not an allowed code (${allowed.join(', ')})`
    : `not among the codes x12kit knows (${allowed.join(', ')})`;
}

let inspectSeq = 0;
let pointed = null; // {segmentIndex, element, code} of the diagnostic last chosen
async function inspect(i) {
  const s = current.segments[i];
  if (!s) return;
  const seq = ++inspectSeq; // the last request wins (hover and keys can interleave)
  const title = $('inspector-title');
  const ctx = $('inspector-context');
  const body = $('inspector-table').tBodies[0];
  const { info, error } = await describe(s.set || '', s.version || '', s.id);
  if (seq !== inspectSeq || current.segments[i] !== s) return;
  title.textContent = info && info.segmentName ? `${s.id} — ${info.segmentName}` : s.id;
  const where = info && info.setName
    ? `Segment ${s.index} of the ${info.set} ${info.setName} (${s.version})`
    : `Segment ${s.index}`;
  ctx.textContent = error
    ? `${where}: x12kit cannot describe it (${error.message}).`
    : !info
    ? (s.set ? `${where}: the ${s.set} declaration of x12kit has no ${s.id} segment.` : `${where}: not inside a transaction set.`)
    : info.mandatory === null
      ? `${where}: ${s.id === 'ISA' || s.id === 'IEA' || s.id === 'TA1' ? 'interchange' : s.id === 'GS' || s.id === 'GE' ? 'functional group' : s.id === 'ST' || s.id === 'SE' ? 'transaction set' : 'acknowledgment'} segment.`
      : `${where}: ${info.mandatory ? 'mandatory' : 'optional'}, up to ${info.maxUse ?? 'any number of'} use${info.maxUse === 1 ? '' : 's'}.`;
  const rows = s.elements.map((value, k) => {
    const pos = k + 1;
    const d = info && info.elements.find((e) => e.position === pos);
    const ref = `${s.id}${String(pos).padStart(2, '0')}`;
    const refCell = el('th', { scope: 'row' }, ref);
    if (d && d.number) refCell.append(el('br'), el('small', { class: 'decl' }, el('abbr', { title: 'X12 data element number' }, 'DE'), ` ${d.number}`));
    const nameCell = el('td', {});
    if (d) nameCell.append(d.name || d.description || '', el('br'), el('small', { class: 'decl' }, declared(d)));
    else if (info) nameCell.append(el('small', { class: 'decl' }, 'not described by x12kit'));
    return el('tr', {},
      refCell,
      nameCell,
      el('td', { class: 'value' }, value),
      el('td', {}, codeMeaning(d, value)));
  });
  // The element the chosen diagnostic points at.
  if (pointed && pointed.segmentIndex === s.index && pointed.element >= 1 && rows[pointed.element - 1]) {
    rows[pointed.element - 1].classList.add('current');
    ctx.append(` The ${pointed.code} diagnostic points at ${s.id}${String(pointed.element).padStart(2, '0')}.`);
  }
  body.replaceChildren(...rows);
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

async function showDocuments(r) {
  const box = $('documents');
  box.replaceChildren();
  if (!r.parse) return;
  for (const ic of r.parse.interchanges) {
    for (const g of ic.groups) {
      for (const t of g.transactions) {
        if (t.document === undefined) continue;
        const first = t.segments[0] && t.segments[0].id;
        const info = first ? (await describe(t.type, g.header.version, first)).info : null;
        box.append(el('details', { class: 'document' },
          el('summary', {}, `${t.type} ${t.controlNumber}${info ? ' — ' + info.setName : ''}`),
          el('pre', { class: 'block' }, JSON.stringify(t.document, null, 2))));
      }
    }
  }
  if (!box.children.length) box.append(el('p', { class: 'hint' }, 'No set of the 18 known types in this input.'));
}
