// CSV intake (POST /api/upload): choose the type and the partner, drop a CSV,
// see what it would make (dryRun=true: every document and every problem at its
// row and column, nothing stored), fix a cell in the page or in the file, then
// create the documents (all or nothing) and follow them.
import { api, enc, qs } from '../api.js';
import { badge, busy, el, errorText, fill, heading, say, table } from '../ui.js';
import { documentTypes } from './types.js';

/** A CSV cell as the file would carry it: quoted when it must be. */
function cell(v, sep) {
  return /["\r\n]/.test(v) || v.includes(sep) || /^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** The table (header and rows, as the server read them) written back as CSV text. */
function toCsv(t, sep) {
  return [t.header, ...t.rows].map((r) => r.map((v) => cell(v, sep)).join(sep)).join('\r\n') + '\r\n';
}

export async function render(root, { query, isCurrent }) {
  const [types, partners] = await Promise.all([
    documentTypes(),
    api.get('/api/settings/partners').then((r) => r.data.filter((p) => p.enabled)),
  ]);
  if (!isCurrent()) return;
  const type = el('select', { id: 'u-type', required: true },
    el('option', { value: '' }, 'Choose a type'),
    types.map((t) => el('option', { value: t.code, selected: t.code === (query.get('documentTypeCode') || '850') }, `${t.code} ${t.name}`)));
  const partner = el('select', { id: 'u-partner', required: true },
    el('option', { value: '' }, 'Choose a partner'),
    partners.map((p, i) => el('option', { value: p.id, selected: query.get('partnerId') ? p.id === query.get('partnerId') : i === 0 }, p.profile.name ? `${p.id} (${p.profile.name})` : p.id)));
  const sepSel = el('select', { id: 'u-delimiter' }, el('option', { value: ',' }, 'comma (,)'), el('option', { value: ';' }, 'semicolon (;)'));
  const file = el('input', { id: 'u-file', type: 'file', accept: '.csv,text/csv', class: 'visually-hidden' });
  const drop = el('div', { class: 'drop', id: 'u-drop' },
    el('p', {}, 'Drop a CSV file here, or '),
    el('label', { for: file.id, class: 'button' }, 'Choose a file…'),
    file);
  const template = el('a', { class: 'button small', id: 'u-template', download: '' }, 'Download the header row of this type');
  const templateFor = () => {
    template.href = `/api/v1/document-types/${enc(type.value || '850')}/csv-template`;
  };
  templateFor();
  type.addEventListener('change', templateFor);
  const result = el('div', { id: 'u-result', 'aria-live': 'polite' });
  let current = null; // {name, text, table, sep}

  async function send(dryRun) {
    if (!type.value || !partner.value) {
      fill(result, el('p', { class: 'notice notice-error', role: 'alert' }, 'Choose the type and the partner first.'));
      return null;
    }
    const path = `/api/upload${qs({ documentTypeCode: type.value, partnerId: partner.value, delimiter: sepSel.value === ';' ? 'semicolon' : '', dryRun: dryRun ? 'true' : '' })}`;
    return api.upload(path, current.text, 'text/csv; charset=utf-8');
  }

  function preview(r, problems) {
    const byCell = new Map();
    for (const p of problems) byCell.set(`${p.row}:${p.column}`, [...(byCell.get(`${p.row}:${p.column}`) || []), p]);
    const t = r.table;
    const inputs = [];
    const header = el('tr', {}, el('th', { scope: 'col' }, 'Row'), t.header.map((h) => el('th', { scope: 'col' }, h)));
    const rows = t.rows.map((cells, i) => {
      const rowNo = i + 2; // the header is row 1
      const rowProblems = problems.filter((p) => p.row === rowNo && !t.header.includes(p.column));
      return el('tr', { 'data-row': rowNo, class: problems.some((p) => p.row === rowNo) ? 'has-problem' : '' },
        el('th', { scope: 'row' }, String(rowNo), rowProblems.map((p) => el('div', { class: 'field-error' }, p.message))),
        cells.map((v, j) => {
          const column = t.header[j];
          const here = byCell.get(`${rowNo}:${column}`) || [];
          const id = `cell-${rowNo}-${j}`;
          // A file longer than the preview is fixed in the file (editing would drop its other rows).
          const input = el('input', { id, value: v, 'aria-label': `Row ${rowNo}, ${column}`, 'data-row': rowNo, 'data-column': column, spellcheck: 'false', readonly: t.truncated });
          inputs.push([input, i, j]);
          if (here.length) {
            input.setAttribute('aria-invalid', 'true');
            input.setAttribute('aria-describedby', `${id}-error`);
          }
          return el('td', { class: here.length ? 'problem' : '' }, input,
            here.length ? el('div', { class: 'field-error', id: `${id}-error` }, here.map((p) => p.message).join(' ')) : null);
        }));
    });
    for (const [input, i, j] of inputs) input.addEventListener('change', () => {
      current.table.rows[i][j] = input.value;
      current.text = toCsv(current.table, current.sep);
      current.edited = true;
    });
    return el('div', { class: 'table-wrap csv-preview', tabindex: '0', role: 'region', 'aria-label': 'The file' }, el('table', { id: 'csv-table' },
      el('caption', {}, `${current.name}: ${t.rows.length} row${t.rows.length === 1 ? '' : 's'} under the header${t.truncated ? ` (the first ${t.rows.length} shown: fix the file itself and drop it again)` : '. Edit a cell to fix it, then check again.'}`),
      el('thead', {}, header), el('tbody', {}, rows)));
  }

  async function check() {
    fill(result, el('p', { class: 'muted' }, 'Checking…'));
    let r;
    try {
      r = (await send(true)).data;
    } catch (e) {
      const problems = e.details.filter((d) => d.row !== undefined);
      fill(result, el('div', { class: 'notice notice-error', role: 'alert' }, el('p', {}, `The file cannot be read: ${errorText(e)}`),
        e.details.length ? el('ul', {}, e.details.map((d) => el('li', {}, d.row ? `Row ${d.row}${d.column ? `, ${d.column}` : ''}: ` : '', d.message))) : null));
      return problems;
    }
    current.table = r.table;
    const problems = r.problems;
    const again = el('button', { type: 'button', class: 'button', id: 'u-check' }, 'Check again');
    again.addEventListener('click', () => busy(again, check));
    const create = el('button', { type: 'button', class: 'button primary', id: 'u-submit', disabled: problems.length > 0 || r.documents.length === 0 },
      `Create ${r.documents.length} document${r.documents.length === 1 ? '' : 's'}`);
    create.addEventListener('click', () => busy(create, submit));
    fill(result,
      problems.length
        ? el('div', { class: 'notice notice-error', role: 'alert', id: 'u-problems' },
          el('p', {}, `${problems.length} problem${problems.length === 1 ? '' : 's'}: nothing can be created until ${problems.length === 1 ? 'it is' : 'they are'} fixed. Each is shown at its row and column below.`),
          el('ul', {}, problems.map((p) => el('li', {}, `Row ${p.row}, ${p.column || 'the row'}${p.pointer ? ` (${p.pointer})` : ''}: ${p.message}`))))
        : el('p', { class: 'notice notice-ok', id: 'u-ready' }, `Ready: ${r.documents.length} document${r.documents.length === 1 ? '' : 's'} for ${partner.value}, nothing is stored yet.`),
      table('Documents the file makes', ['Document key', 'Reference', 'Rows'], r.documents.map((d) => el('tr', {},
        el('td', {}, d.key), el('td', {}, d.reference || '—'), el('td', {}, d.rows[0] === d.rows[d.rows.length - 1] ? String(d.rows[0]) : `${d.rows[0]}–${d.rows[d.rows.length - 1]}`))), 'None.'),
      el('div', { class: 'form-buttons' }, again, create),
      preview(r, problems));
    return problems;
  }

  async function submit() {
    try {
      const r = (await send(false)).data;
      const n = r.documents.length;
      fill(result,
        el('p', { class: 'notice notice-ok', id: 'u-done', role: 'status' }, `${r.replayed ? 'Uploaded before (nothing new was made)' : 'Queued'}: ${n} document${n === 1 ? '' : 's'} for ${partner.value}. They are validated and routed now.`),
        table('Documents made from the file', ['Reference', 'Document', 'Status'], r.documents.map((d) => el('tr', {},
          el('td', {}, d.reference || d.key),
          el('td', {}, el('a', { href: `#/documents/${enc(d.documentId)}` }, d.documentId)),
          el('td', {}, badge(d.status))))),
        el('p', {}, el('a', { class: 'button', href: `#/documents${qs({ partnerId: partner.value, documentTypeCode: type.value })}` }, 'Follow them in the documents list')));
    } catch (e) {
      if (e.details.length) {
        await check();
      } else {
        say(`Nothing was created: ${errorText(e)}`, 'error');
      }
    }
  }

  async function take(f) {
    if (!f) return;
    // The bytes as they are: the server says when they are not UTF-8.
    const bytes = await f.arrayBuffer().catch(() => null);
    if (bytes === null) {
      fill(result, el('p', { class: 'notice notice-error', role: 'alert' }, `Could not read ${f.name}.`));
      return;
    }
    current = { name: f.name, text: new Blob([bytes]), sep: sepSel.value, edited: false };
    await check();
  }
  file.addEventListener('change', () => take(file.files[0]));
  for (const t of ['dragenter', 'dragover']) drop.addEventListener(t, (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    take(e.dataTransfer.files[0]);
  });
  for (const s of [type, partner, sepSel]) s.addEventListener('change', () => {
    if (current) {
      current.sep = sepSel.value;
      if (current.edited) current.text = toCsv(current.table, current.sep);
      check();
    }
  });
  fill(root,
    heading('CSV intake', 'Turn a spreadsheet into documents: one document per value of the first column (the document key), one line item per row.'),
    el('form', { class: 'upload-form', novalidate: true, onsubmit: (e) => e.preventDefault() },
      el('div', { class: 'row' },
        el('div', { class: 'field' }, el('label', { for: type.id }, 'Document type'), type),
        el('div', { class: 'field' }, el('label', { for: partner.id }, 'Trading partner'), partner),
        el('div', { class: 'field' }, el('label', { for: sepSel.id }, 'Separator'), sepSel)),
      el('p', { class: 'hint' }, 'The header row names JSON pointers into the document: ', el('code', {}, '/purchaseOrderNumber'), ', ', el('code', {}, '/shipTo/id'), ', ', el('code', {}, '/lines/*/sku'), ' (each * column adds a line per row). ', template),
      drop),
    result);
  if (!partners.length) fill(result, el('p', { class: 'notice notice-info' }, 'There is no enabled trading partner yet: ', el('a', { href: '#/partners/new' }, 'make one first'), '.'));
}
