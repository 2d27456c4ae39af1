// Building blocks of the pages: elements made with text nodes only (no HTML
// strings anywhere, so nothing the server returns can become markup), times in
// the person's own zone, status badges, the confirm dialog every action goes
// through, the dialog that shows a secret once, and problems shown at their fields.

/** `el('td', {class: 'x'}, 'text', child)`: attributes, listeners (`onclick`) and children. */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'value') e.value = v;
    else if (k === 'checked' || k === 'disabled' || k === 'hidden' || k === 'required' || k === 'selected') e[k] = Boolean(v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  append(e, children);
  return e;
}

function append(e, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces the children of `e`. */
export function fill(e, ...children) {
  e.replaceChildren();
  append(e, children);
  return e;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const shortTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** A `<time>` with the local date and time, the exact UTC time as its tooltip. */
export function time(iso, short = false) {
  if (!iso) return el('span', { class: 'muted' }, '—');
  const d = new Date(iso);
  return el('time', { datetime: iso, title: iso }, (short ? shortTime : dateTime).format(d));
}

/** "3 min ago", "in 2 h". */
export function ago(iso) {
  const s = Math.round((Date.parse(iso) - Date.now()) / 1000);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const a = Math.abs(s);
  if (a < 60) return rtf.format(s, 'second');
  if (a < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (a < 86400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86400), 'day');
}

const STATUS_TEXT = {
  queued: 'Queued', validated: 'Validated', routed: 'Routed', acknowledged: 'Acknowledged',
  failed: 'Failed', canceled: 'Canceled', received: 'Received',
  pending: 'Pending', delivered: 'Delivered',
};

/** A status badge: its word, never its colour alone. */
export function badge(status) {
  return el('span', { class: `badge badge-${status}` }, STATUS_TEXT[status] || status);
}

/** The live region where the page says what it just did. */
export function say(text, kind = 'info') {
  fill(document.getElementById('notice'), text ? el('p', { class: `notice notice-${kind}` }, text) : null);
}

/** `message` of any error, with its code. */
export function errorText(e) {
  return e && e.code ? `${e.message} (${e.code})` : String((e && e.message) || e);
}

/** A paragraph saying why something could not be shown. */
export function failure(e, what) {
  return el('p', { class: 'notice notice-error', role: 'alert' }, `${what}: ${errorText(e)}`);
}

function dialog(labelId, ...children) {
  const d = el('dialog', { 'aria-labelledby': labelId, class: 'dialog' }, ...children);
  document.body.append(d);
  d.addEventListener('close', () => setTimeout(() => d.remove(), 0));
  return d;
}

let dialogs = 0;

/**
 * Asks before an action: `title`, what will happen (`lines`), the button's
 * word (`action`); `danger` colours it. Resolves true when confirmed. Escape,
 * the Cancel button and a click outside decline. Focus goes to Cancel first,
 * so Enter alone never does the action.
 */
export function confirmAction({ title, lines = [], action, danger = false }) {
  return new Promise((resolve) => {
    const id = `dialog-title-${++dialogs}`;
    let answer = false;
    const cancel = el('button', { type: 'button', class: 'button' }, 'Cancel');
    const ok = el('button', { type: 'button', class: `button ${danger ? 'danger' : 'primary'}` }, action);
    const d = dialog(id,
      el('h2', { id }, title),
      ...lines.map((l) => el('p', {}, l)),
      el('div', { class: 'dialog-buttons' }, cancel, ok));
    cancel.addEventListener('click', () => d.close());
    ok.addEventListener('click', () => {
      answer = true;
      d.close();
    });
    d.addEventListener('close', () => resolve(answer));
    d.showModal();
    cancel.focus();
  });
}

/** Copies `text`, saying so in `status`; selects it in `field` when the clipboard is not there. */
export async function copy(text, field, status) {
  try {
    await navigator.clipboard.writeText(text);
    fill(status, 'Copied.');
  } catch {
    field.focus();
    field.select();
    fill(status, 'Selected: press Ctrl+C (⌘C) to copy.');
  }
}

/** Shows a secret once (a new API key or webhook secret) with a copy button. */
export function showOnce({ title, label, secret, lines = [] }) {
  return new Promise((resolve) => {
    const id = `dialog-title-${++dialogs}`;
    const fieldId = `${id}-secret`;
    const field = el('input', { id: fieldId, class: 'secret', readonly: true, value: secret, spellcheck: 'false', autocomplete: 'off' });
    const status = el('p', { class: 'muted', role: 'status' });
    const done = el('button', { type: 'button', class: 'button primary' }, 'I have copied it');
    const d = dialog(id,
      el('h2', { id }, title),
      ...lines.map((l) => el('p', {}, l)),
      el('label', { for: fieldId }, label),
      el('div', { class: 'copy-row' }, field,
        el('button', { type: 'button', class: 'button', onclick: () => copy(secret, field, status) }, 'Copy')),
      status,
      el('div', { class: 'dialog-buttons' }, done));
    done.addEventListener('click', () => d.close());
    d.addEventListener('close', () => resolve());
    d.showModal();
    field.focus();
    field.select();
  });
}

/**
 * Shows each problem of a refused request at its field: `fields` maps JSON
 * pointers to inputs (a problem under a pointer goes to the longest prefix
 * that is a field); the rest are listed in `summary`. Clears earlier problems.
 */
export function showProblems(form, summary, details, fields) {
  for (const e of form.querySelectorAll('.field-error')) e.remove();
  for (const e of form.querySelectorAll('[aria-invalid]')) {
    e.removeAttribute('aria-invalid');
    e.removeAttribute('aria-describedby');
  }
  const rest = [];
  let first = null;
  let n = 0;
  for (const d of details) {
    let pointer = d.pointer || '';
    let input = null;
    while (pointer && !(input = fields[pointer])) pointer = pointer.slice(0, Math.max(0, pointer.lastIndexOf('/')));
    if (!input) {
      rest.push(d);
      continue;
    }
    const id = `${input.id}-error-${++n}`;
    const msg = el('p', { class: 'field-error', id }, d.pointer !== pointer ? `${d.pointer}: ${d.message}` : d.message);
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', [input.getAttribute('aria-describedby'), id].filter(Boolean).join(' '));
    (input.closest('.field') || input.parentElement).append(msg);
    first = first || input;
  }
  fill(summary, details.length
    ? el('div', { class: 'notice notice-error', role: 'alert' },
      el('p', {}, `${details.length} problem${details.length === 1 ? '' : 's'}: nothing was saved.${first ? ' Each is shown at its field.' : ''}`),
      rest.length ? el('ul', {}, rest.map((d) => el('li', {}, d.pointer ? el('code', {}, d.pointer) : null, d.pointer ? ' ' : null, d.message))) : null)
    : null);
  (first || summary).focus?.();
  return first;
}

/** A labelled field: `<div class="field"><label>…</label>input<p class="hint">…</p></div>`. */
export function field(label, input, hint) {
  const hintId = hint ? `${input.id}-hint` : null;
  if (hintId) input.setAttribute('aria-describedby', hintId);
  return el('div', { class: 'field' },
    el('label', { for: input.id }, label),
    input,
    hint ? el('p', { class: 'hint', id: hintId }, hint) : null);
}

/** Disables `button` while `work` runs; says what went wrong in the notice area. */
export async function busy(button, work) {
  const was = button.disabled;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = was;
    button.removeAttribute('aria-busy');
  }
}

/** A region that scrolls sideways on a narrow screen, reachable with the keyboard. */
export function scroller(label, ...children) {
  return el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': label }, ...children);
}

/** A table with a caption (for screen readers), column headers and rows. */
export function table(caption, headers, rows, empty = 'Nothing yet.') {
  return scroller(caption.text || caption,
    el('table', {},
      el('caption', { class: caption.visible ? '' : 'visually-hidden' }, caption.text || caption),
      el('thead', {}, el('tr', {}, headers.map((h) => el('th', { scope: 'col' }, h || el('span', { class: 'visually-hidden' }, 'Actions'))))),
      el('tbody', {}, rows.length ? rows : el('tr', {}, el('td', { colspan: headers.length, class: 'muted' }, empty)))));
}

/** A page's heading and lede. */
export function heading(title, lede) {
  return [el('h1', { id: 'page-title', tabindex: '-1' }, title), lede ? el('p', { class: 'lede' }, lede) : null];
}

/** Pretty JSON in a scrollable block. */
export function jsonBlock(value, label) {
  return el('pre', { class: 'block', tabindex: '0', 'aria-label': label }, JSON.stringify(value, null, 2));
}
