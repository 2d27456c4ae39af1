// The X12 inspector: the raw text as one element per segment (separators
// dimmed, segments with errors underlined), the diagnostics as a table whose
// rows highlight their segment, and a panel describing the chosen segment and
// each of its elements (name, data element number, type, lengths, use, the
// document field it maps to, what a code means) from the core's
// `describeSegment`. Every X12 fact comes from x12kit (the WASM package):
// this module only shows. It touches no DOM until `createInspector` is called,
// so the page's worker imports `rawSegments` from it too. Used by this page
// (app.js) and by the reference server's dashboard (examples/server/dashboard).

/** The first `limit` segments of `bytes`, with their text, position and set context (`x12` is the WASM module). */
export function rawSegments(x12, bytes, limit = 5000) {
  const dec = new TextDecoder();
  const it = x12.segments(bytes); // lazy: only the segments shown become views
  const out = [];
  let version = '';
  let type = '';
  let icVersion = ''; // ISA12, the version of the interchange's own segments (ISA, TA1, IEA)
  // next() rather than for…of: `break` would close the iterator, and the
  // segments after the ones shown are still to be counted (skipRest).
  for (let r = it.next(); !r.done; r = it.next()) {
    const s = r.value;
    const { id, index, offset, length } = s;
    const elements = s.elements();
    if (id === 'ISA') icVersion = elements[11] || '';
    if (id === 'GS') version = elements[7] || '';
    if (id === 'ST') type = elements[0] || '';
    out.push({
      index, id, offset, elements,
      text: dec.decode(bytes.subarray(offset, offset + length)),
      terminator: dec.decode(bytes.subarray(offset + length, offset + length + 1)),
      set: type, version: version || icVersion,
    });
    if (id === 'SE') type = '';
    if (id === 'GE') version = '';
    if (out.length === limit) break;
  }
  const total = out.length + it.skipRest();
  it.free();
  return { segments: out, total };
}

/** `el('td', {class: 'x', onclick: f}, 'text', child)`: an element with attributes, listeners and children. */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

/** What the declaration says of an element besides its name: type, lengths, use, payload field. */
export function declared(d) {
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
export function codeMeaning(d, value) {
  if (!d || !value) return '';
  const known = (d.meanings || []).find((m) => m.code === value);
  if (known) return known.meaning;
  const allowed = d.codes || d.knownCodes;
  if (!allowed || !allowed.length) return '';
  return d.codes
    ? `not an allowed code (${allowed.join(', ')})`
    : `not among the codes x12kit knows (${allowed.join(', ')})`;
}

/**
 * Binds the inspector to its elements:
 * - `raw`: a focusable `<pre>` for the segments;
 * - `title`, `context`, `table` (with a `<tbody>`): the inspector panel;
 * - `note`: where "showing the first N segments" goes;
 * - `diagnostics` (a `<table>` with a `<tbody>`, 7 columns) and `count`, optional;
 * - `describe(set, version, segmentId)`: a promise of `{info, error}` (the core's
 *   `describeSegment` result or the error it threw);
 * - `status(text)`: tells the person what happened (optional);
 * - `idPrefix`: the prefix of each segment element's id (`seg-` + its index).
 * Returns `{show, highlight, select}`.
 */
export function createInspector({ raw, title, context, table, note, diagnostics, count, describe, status = () => {}, idPrefix = 'seg-' }) {
  let current = null; // {segments, total, full, diagnostics}
  let selected = -1; // index into current.segments
  let inspectSeq = 0;
  let pointed = null; // {segmentIndex, element, code} of the diagnostic last chosen

  function showDiagnostics(list) {
    if (!diagnostics) return;
    if (count) count.textContent = `(${list.length})`;
    const body = diagnostics.tBodies[0];
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
        el('td', {}, d.message, d.guidePointer ? el('span', { class: 'guide-rule' }, ` (guide rule ${d.guidePointer})`) : ''),
        el('td', {}, has ? `#${d.segmentIndex} ${d.segmentId || ''}` : ''),
        el('td', {}, d.element ?? ''),
        el('td', {}, d.offset ?? '')));
    });
  }

  /** The raw text: one span per segment, separators dimmed. */
  function showRaw(sep) {
    raw.replaceChildren();
    selected = -1;
    pointed = null;
    const errorSegs = new Set(current.diagnostics.filter((d) => d.severity === 'error').map((d) => d.segmentIndex));
    const frag = document.createDocumentFragment();
    current.segments.forEach((s, i) => {
      const span = el('span', { class: 'seg' + (errorSegs.has(s.index) ? ' has-error' : ''), id: `${idPrefix}${s.index}`, 'data-i': i });
      const cut = s.text.indexOf(sep);
      if (cut > 0) {
        span.append(el('span', { class: 'id' }, s.text.slice(0, cut)), s.text.slice(cut));
      } else span.append(s.text);
      span.append(el('span', { class: 'sep' }, s.terminator));
      frag.append(span, '\n');
    });
    raw.append(frag);
    if (note) {
      note.textContent = current.segments.length < current.total
        ? `Showing the first ${current.segments.length.toLocaleString()} of ${current.total.toLocaleString()} segments${current.full === false ? ' of the first MB' : ''}.`
        : '';
    }
    title.textContent = 'No segment selected';
    context.textContent = '';
    table.tBodies[0].replaceChildren();
  }

  function select(i) {
    raw.querySelector('.seg.selected')?.classList.remove('selected');
    selected = i;
    const span = raw.querySelector(`.seg[data-i="${i}"]`);
    if (span) {
      span.classList.add('selected');
      span.scrollIntoView({ block: 'nearest' });
    }
    inspect(i);
  }

  /** Highlights the segment of a diagnostic (its index in the list) and scrolls to it. */
  function highlight(segmentIndex, diag) {
    for (const s of raw.querySelectorAll('.seg.hl')) s.classList.remove('hl');
    if (diagnostics) {
      for (const r of diagnostics.querySelectorAll('tr.current')) r.classList.remove('current');
      diagnostics.querySelector(`tr[data-diag="${diag}"]`)?.classList.add('current');
    }
    const span = document.getElementById(`${idPrefix}${segmentIndex}`);
    if (!span) {
      status(`Segment ${segmentIndex} is beyond the part of the file shown.`);
      return;
    }
    span.classList.add('hl');
    span.scrollIntoView({ block: 'center' });
    const d = current.diagnostics[diag];
    pointed = { segmentIndex, element: d && d.element, code: d && d.code };
    select(Number(span.dataset.i));
    status(`Segment ${segmentIndex} (${current.segments[Number(span.dataset.i)].id}) highlighted.`);
  }

  async function inspect(i) {
    const s = current && current.segments[i];
    if (!s) return;
    const seq = ++inspectSeq; // the last request wins (hover and keys can interleave)
    const body = table.tBodies[0];
    const { info, error } = await describe(s.set || '', s.version || '', s.id);
    if (seq !== inspectSeq || current.segments[i] !== s) return;
    title.textContent = info && info.segmentName ? `${s.id} — ${info.segmentName}` : s.id;
    const where = info && info.setName
      ? `Segment ${s.index} of the ${info.set} ${info.setName} (${s.version})`
      : `Segment ${s.index}`;
    context.textContent = error
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
      context.append(` The ${pointed.code} diagnostic points at ${s.id}${String(pointed.element).padStart(2, '0')}.`);
    }
    body.replaceChildren(...rows);
  }

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

  return {
    /**
     * Shows `segments` (from `rawSegments`; `total` of them in the input, `full`
     * false when only the first MB was read) and the validation's `diagnostics`;
     * `sep` is the element separator (dimmed after each segment id).
     */
    show({ segments, total, full, diagnostics: list, sep = '*' }) {
      current = { segments, total, full, diagnostics: list };
      showDiagnostics(list);
      showRaw(sep);
    },
    highlight,
    select,
  };
}
