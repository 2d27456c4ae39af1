// Overview: what needs attention first, then documents by status for today,
// the last 7 days and all time, the queues and the webhook deliveries
// (GET /api/v1/stats, with `since` the person's midnight; GET /api/v1/transactions).
import { api, qs } from '../api.js';
import { badge, el, fill, heading, table, time } from '../ui.js';

const STATUSES = ['queued', 'validated', 'routed', 'acknowledged', 'failed', 'canceled', 'received'];

/** The person's midnight, `daysBack` days ago, as RFC 3339 (with their offset). */
export function midnight(daysBack = 0) {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  d.setDate(d.getDate() - daysBack);
  const off = -d.getTimezoneOffset();
  const pad = (n) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  const sign = off >= 0 ? '+' : '-';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T00:00:00${sign}${pad(off / 60)}:${pad(off % 60)}`;
}

function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 360) / 10} h`;
}

function count(n, stat, href) {
  const v = el('span', { class: 'stat', 'data-stat': stat }, String(n));
  return href && n > 0 ? el('a', { href }, v) : v;
}

export async function render(root, { isCurrent }) {
  const today = midnight(0);
  const week = midnight(6);
  const [t, w, failed] = await Promise.all([
    api.get(`/api/v1/stats${qs({ since: today })}`),
    api.get(`/api/v1/stats${qs({ since: week })}`),
    api.get(`/api/v1/transactions${qs({ status: 'failed', limit: 5 })}`),
  ]);
  if (!isCurrent()) return;
  const s = t.data;
  const a = s.attention;
  const list = (status, since) => `#/documents${qs({ status, since })}`;
  const attention = [
    ['Failed documents', a.failed, 'attention.failed', list('failed'), 'Validation, routing or the partner refused them, or no acknowledgement came in time.'],
    ['Rejected by the partner', a.rejectedByPartner, 'attention.rejectedByPartner', list('failed'), 'The partner\'s TA1, 997 or 999 rejected them.'],
    ['Acknowledgements overdue', a.acknowledgementOverdue, 'attention.acknowledgementOverdue', list('failed'), 'No acknowledgement came within the partner\'s window.'],
    ['Webhook deliveries failed', a.webhookDeliveriesFailed, 'attention.webhookDeliveriesFailed', '#/webhooks', 'Your endpoints did not take them after every retry.'],
  ];
  const anything = attention.some(([, n]) => n > 0);
  const docRows = STATUSES.map((st) => el('tr', {},
    el('th', { scope: 'row' }, badge(st)),
    el('td', { class: 'num' }, count(s.created.documents[st] ?? 0, `today.${st}`, list(st, today))),
    el('td', { class: 'num' }, count(w.data.created.documents[st] ?? 0, `week.${st}`, list(st, week))),
    el('td', { class: 'num' }, count(s.documents[st] ?? 0, `all.${st}`, list(st)))));
  const sum = (o) => STATUSES.reduce((n, st) => n + (o[st] || 0), 0);
  docRows.push(el('tr', { class: 'total' },
    el('th', { scope: 'row' }, 'All'),
    el('td', { class: 'num' }, count(sum(s.created.documents), 'today.total', `#/documents${qs({ since: today })}`)),
    el('td', { class: 'num' }, count(sum(w.data.created.documents), 'week.total', `#/documents${qs({ since: week })}`)),
    el('td', { class: 'num' }, count(sum(s.documents), 'all.total', '#/documents'))));
  const q = s.queues;
  const h = s.webhooks;
  fill(root,
    heading('Overview', 'Which documents did not go through, why, and what to do about it.'),
    el('section', { class: `panel attention ${anything ? 'has-problems' : 'all-clear'}`, 'aria-labelledby': 'attention-h' },
      el('h2', { id: 'attention-h' }, 'Needs attention'),
      anything ? null : el('p', { class: 'all-clear-text' }, 'Nothing needs attention: no failed document, no failed webhook delivery.'),
      el('ul', { class: 'attention-list' }, attention.map(([label, n, stat, href, hint]) => el('li', { class: n > 0 ? 'problem' : '' },
        el('span', { class: 'attention-count' }, count(n, stat, href)),
        el('span', {}, el('strong', {}, label), el('br'), el('span', { class: 'hint' }, hint))))),
      failed.data.length ? el('div', {},
        el('h3', {}, 'Latest failed documents'),
        table('Latest failed documents', ['Updated', 'Reference', 'Type', 'Partner', 'Status'], failed.data.map((d) => el('tr', {},
          el('td', {}, time(d.updatedAt, true)),
          el('td', {}, el('a', { href: `#/documents/${encodeURIComponent(d.documentId)}` }, d.reference || d.documentId)),
          el('td', {}, d.documentTypeCode),
          el('td', {}, d.partnerId),
          el('td', {}, badge(d.status))))),
        el('p', {}, el('a', { href: list('failed') }, 'Every failed document →'))) : null),
    el('div', { class: 'grid-2' },
      el('section', { class: 'panel', 'aria-labelledby': 'docs-h' },
        el('h2', { id: 'docs-h' }, 'Documents by status'),
        table('Documents by status: created today, in the last 7 days, all time', ['Status', 'Today', 'Last 7 days', 'All time'], docRows)),
      el('div', {},
        el('section', { class: 'panel', 'aria-labelledby': 'queues-h' },
          el('h2', { id: 'queues-h' }, 'Queues'),
          el('dl', { class: 'facts' },
            el('dt', {}, 'To validate'), el('dd', {}, count(q.toValidate, 'queues.toValidate', list('queued'))),
            el('dt', {}, 'To route to partners'), el('dd', {}, count(q.toRoute, 'queues.toRoute', list('validated'))),
            el('dt', {}, 'Awaiting acknowledgement'), el('dd', {}, count(q.awaitingAcknowledgement, 'queues.awaitingAcknowledgement', list('routed'))),
            el('dt', {}, 'Oldest waiting'), el('dd', {}, el('span', { 'data-stat': 'queues.oldestWaiting' }, duration(q.oldestWaitingMs))))),
        el('section', { class: 'panel', 'aria-labelledby': 'hooks-h' },
          el('h2', { id: 'hooks-h' }, 'Webhook deliveries'),
          el('dl', { class: 'facts' },
            el('dt', {}, 'Pending'), el('dd', {}, count(h.pending, 'webhooks.pending')),
            el('dt', {}, 'Retrying'), el('dd', {}, count(h.retrying, 'webhooks.retrying')),
            el('dt', {}, 'Delivered'), el('dd', {}, count(h.delivered, 'webhooks.delivered')),
            el('dt', {}, 'Failed'), el('dd', {}, count(h.failed, 'webhooks.failed', '#/webhooks')))))),
    el('p', { class: 'hint' }, 'Today and the last 7 days count the documents created since your midnight (', time(today), ').'));
}
