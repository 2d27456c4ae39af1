// Documents: the list, newest first, filtered by status, partner, type,
// direction and date, and searched by business reference
// (GET /api/v1/transactions with the same parameters as the URL's fragment).
import { api, qs } from '../api.js';
import { badge, el, fill, heading, table, time } from '../ui.js';
import { documentTypes } from './types.js';

const STATUSES = ['queued', 'validated', 'routed', 'acknowledged', 'failed', 'canceled', 'received'];
const FILTERS = ['reference', 'status', 'partnerId', 'documentTypeCode', 'direction', 'since', 'until'];

/** `2026-11-24` of an RFC 3339 time, in the person's zone. */
function dateOf(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The person's midnight of `date` (`2026-11-24`) plus `days`, as an RFC 3339 time. */
function localMidnight(date, days = 0) {
  const [y, m, d] = date.split('-').map(Number);
  const t = new Date(y, m - 1, d + days);
  const off = -t.getTimezoneOffset();
  const pad = (n) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}T00:00:00${off >= 0 ? '+' : '-'}${pad(off / 60)}:${pad(off % 60)}`;
}

function select(id, options, value) {
  return el('select', { id, name: id },
    options.map(([v, text]) => el('option', { value: v, selected: v === (value || '') }, text)));
}

export async function render(root, { query, go, isCurrent }) {
  const filter = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) || '']));
  const cursor = query.get('cursor') || '';
  const back = query.get('back') || '';
  const [types, partners, page] = await Promise.all([
    documentTypes(),
    api.get('/api/settings/partners').then((r) => r.data).catch(() => []),
    api.get(`/api/v1/transactions${qs({ ...filter, cursor, limit: 50 })}`),
  ]);
  if (!isCurrent()) return;

  const reference = el('input', { id: 'f-reference', type: 'search', value: filter.reference, placeholder: 'PO-10045', spellcheck: 'false', autocomplete: 'off' });
  const status = select('f-status', [['', 'Any status'], ...STATUSES.map((s) => [s, s[0].toUpperCase() + s.slice(1)])], filter.status);
  const partner = select('f-partner', [['', 'Any partner'], ...partners.map((p) => [p.id, p.profile.name ? `${p.id} (${p.profile.name})` : p.id])], filter.partnerId);
  if (filter.partnerId && !partners.some((p) => p.id === filter.partnerId)) partner.append(el('option', { value: filter.partnerId, selected: true }, filter.partnerId));
  const type = select('f-type', [['', 'Any type'], ...types.map((t) => [t.code, `${t.code} ${t.name}`])], filter.documentTypeCode);
  if (filter.documentTypeCode && !types.some((t) => t.code === filter.documentTypeCode)) type.append(el('option', { value: filter.documentTypeCode, selected: true }, filter.documentTypeCode));
  const direction = select('f-direction', [['', 'Both directions'], ['outbound', 'Outbound (to partners)'], ['inbound', 'Inbound (from partners)']], filter.direction);
  const from = el('input', { id: 'f-from', type: 'date', value: dateOf(filter.since) });
  const to = el('input', { id: 'f-to', type: 'date', value: filter.until ? dateOf(new Date(Date.parse(filter.until) - 1).toISOString()) : '' });
  const wrap = (label, input) => el('div', { class: 'field' }, el('label', { for: input.id }, label), input);
  const form = el('form', { class: 'filters', role: 'search', 'aria-label': 'Find documents' },
    wrap('Business reference', reference),
    wrap('Status', status),
    wrap('Partner', partner),
    wrap('Type', type),
    wrap('Direction', direction),
    wrap('Created from', from),
    wrap('Created until (inclusive)', to),
    el('div', { class: 'filter-buttons' },
      el('button', { type: 'submit', class: 'button primary' }, 'Find'),
      el('a', { class: 'button', href: '#/documents' }, 'Clear')));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    go(`#/documents${qs({
      reference: reference.value.trim(),
      status: status.value,
      partnerId: partner.value,
      documentTypeCode: type.value,
      direction: direction.value,
      since: from.value ? localMidnight(from.value) : '',
      until: to.value ? localMidnight(to.value, 1) : '',
    })}`);
  });

  const refField = (code) => (types.find((t) => t.code === code) || {}).referenceField;
  const rows = page.data.map((d) => el('tr', {},
    el('td', {}, time(d.createdAt, true)),
    el('td', {}, el('a', { href: `#/documents/${encodeURIComponent(d.documentId)}`, title: refField(d.documentTypeCode) ? `${refField(d.documentTypeCode)} of the ${d.documentTypeCode}` : null },
      d.reference || el('span', { class: 'muted' }, `(${d.documentId})`))),
    el('td', {}, d.documentTypeCode),
    el('td', {}, d.partnerId),
    el('td', {}, d.direction === 'outbound' ? 'Out' : 'In'),
    el('td', {}, badge(d.status)),
    el('td', { class: 'num' }, d.controlNumbers.interchange ?? '—')));
  const active = FILTERS.filter((k) => filter[k]);
  const nav = el('nav', { class: 'pager', 'aria-label': 'Pages' },
    cursor ? el('a', { class: 'button', href: `#/documents${qs({ ...filter, cursor: back })}`, rel: 'prev' }, '← Newer') : null,
    page.nextCursor ? el('a', { class: 'button', href: `#/documents${qs({ ...filter, cursor: page.nextCursor, back: cursor })}`, rel: 'next' }, 'Older →') : null);
  fill(root,
    heading('Documents', 'Everything sent to and received from your trading partners, newest first.'),
    form,
    el('p', { class: 'result-count', role: 'status', id: 'result-count' },
      `${page.data.length}${page.nextCursor ? '+' : ''} document${page.data.length === 1 ? '' : 's'}`,
      active.length ? ` matching ${active.map((k) => `${k} ${k === 'since' || k === 'until' ? new Date(filter[k]).toLocaleString() : filter[k]}`).join(', ')}` : '',
      cursor ? ' (an older page)' : '',
      '.'),
    table({ text: 'Documents', visible: false }, ['Created', 'Reference', 'Type', 'Partner', 'Dir.', 'Status', 'ISA13'], rows,
      active.length ? 'No document matches these filters.' : 'No document yet: send one with the API or the CSV intake.'),
    nav);
}
