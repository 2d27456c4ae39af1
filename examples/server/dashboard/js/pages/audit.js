// The audit log (GET /api/settings/audit): every settings change and every
// action on a document or a delivery, newest first: who, when, from where,
// what (before and after, secrets left out).
import { api, qs } from '../api.js';
import { el, fill, heading, jsonBlock, table, time } from '../ui.js';

function entry(a) {
  const details = a.before || a.after
    ? el('details', {},
      el('summary', {}, 'Before and after'),
      el('div', { class: 'grid-2' },
        el('div', {}, el('h3', {}, 'Before'), a.before ? jsonBlock(a.before, 'Before') : el('p', { class: 'muted' }, 'nothing')),
        el('div', {}, el('h3', {}, 'After'), a.after ? jsonBlock(a.after, 'After') : el('p', { class: 'muted' }, 'nothing'))))
    : null;
  return el('tr', {},
    el('td', {}, time(a.at)),
    el('td', {}, a.actor.name),
    el('td', {}, el('code', {}, a.action)),
    el('td', { class: 'url' }, a.target, details),
    el('td', {}, a.client || el('span', { class: 'muted' }, '—')));
}

export async function render(root, { query, isCurrent }) {
  const cursor = query.get('cursor') || '';
  const r = await api.get(`/api/settings/audit${qs({ cursor, limit: 50 })}`);
  if (!isCurrent()) return;
  fill(root,
    heading('Audit log', 'Every change of the settings and every action on a document, newest first.'),
    table('Audit log', ['When', 'Who', 'What', 'Target', 'From'], r.data.map(entry), 'Nothing yet.'),
    el('nav', { class: 'pager', 'aria-label': 'Pages' },
      cursor ? el('a', { class: 'button', href: '#/audit' }, '← Newest') : null,
      r.nextCursor ? el('a', { class: 'button', href: `#/audit${qs({ cursor: r.nextCursor })}` }, 'Older →') : null));
}
