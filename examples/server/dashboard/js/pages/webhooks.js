// Webhook endpoints (/api/settings/webhooks...): create (the secret shown once),
// choose events, rotate the secret, send a test delivery and show the answer,
// the delivery log with redelivery (GET /api/deliveries, POST
// /api/deliveries/{id}/redeliver). Members read and redeliver; admins change.
import { api, enc, qs, session } from '../api.js';
import { badge, busy, confirmAction, el, errorText, field, fill, heading, say, showOnce, showProblems, table, time } from '../ui.js';

const EVENTS = [
  ['document.validated', 'a document passed validation'],
  ['document.routed', 'a document was handed to the partner (resends say so)'],
  ['document.partner_ack', 'the partner\'s acknowledgement came'],
  ['document.error', 'a document failed or was canceled'],
];

/** The endpoint form (create, or change `w`). */
function endpointForm(w, { go, reload }) {
  const admin = session.me.user.role === 'admin';
  const url = el('input', { id: 'w-url', type: 'url', value: w ? w.url : '', required: true, disabled: !admin, placeholder: 'https://erp.example/x12kit-webhooks', spellcheck: 'false' });
  const description = el('input', { id: 'w-description', value: w ? w.description : '', disabled: !admin, maxlength: '500' });
  const enabled = el('input', { id: 'w-enabled', type: 'checkbox', checked: w ? w.enabled : true, disabled: !admin });
  const boxes = EVENTS.map(([e, hint], i) => {
    const box = el('input', { id: `w-event-${i}`, type: 'checkbox', value: e, checked: w ? w.events.length === 0 || w.events.includes(e) : true, disabled: !admin });
    return el('div', { class: 'field checkbox' }, box, el('label', { for: box.id }, el('code', {}, e), ` — ${hint}`));
  });
  const summary = el('div', { id: 'webhook-problems', tabindex: '-1' });
  const save = el('button', { type: 'submit', class: 'button primary' }, w ? 'Save the changes' : 'Create the endpoint');
  const events = el('fieldset', { id: 'w-events' }, el('legend', {}, 'Events it receives (all when every box is ticked)'), boxes);
  const form = el('form', { class: w ? 'webhook-form' : 'webhook-form new-form', novalidate: true, 'aria-labelledby': 'webhook-form-h' },
    el('h2', { id: 'webhook-form-h' }, w ? 'Endpoint' : 'New endpoint'),
    summary,
    field('URL (http:// or https://)', url),
    field('Description', description),
    events,
    el('div', { class: 'field checkbox' }, enabled, el('label', { for: enabled.id }, 'Enabled: receives deliveries')),
    admin ? save : el('p', { class: 'hint' }, 'Only admins change endpoints.'));
  const pointers = { '/url': url, '/description': description, '/events': events, '/enabled': enabled };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const chosen = boxes.map((b) => b.querySelector('input')).filter((b) => b.checked).map((b) => b.value);
    if (!chosen.length) {
      showProblems(form, summary, [{ pointer: '/events', message: 'Tick at least one event (all of them: every event).' }], pointers);
      return;
    }
    const body = {
      url: url.value.trim(),
      description: description.value.trim(),
      enabled: enabled.checked,
      events: chosen.length === EVENTS.length ? [] : chosen,
    };
    await busy(save, async () => {
      try {
        if (w) {
          await api.put(`/api/settings/webhooks/${enc(w.id)}`, body);
          say('Saved.', 'ok');
          await reload();
        } else {
          const r = (await api.post('/api/settings/webhooks', body)).data;
          await showOnce({
            title: 'The endpoint\'s signing secret',
            label: 'Signing secret (shown once)',
            secret: r.secret,
            lines: ['Your receiver verifies each delivery with it (X-Service-Signature: sha256=HMAC of "timestamp.body"). Copy it now: it is not shown again (rotate it to get a new one).'],
          });
          say(`Created the endpoint ${r.url}.`, 'ok');
          go(`#/webhooks/${enc(r.id)}`);
        }
      } catch (e) {
        if (e.details.length) showProblems(form, summary, e.details, pointers);
        else {
          fill(summary, el('p', { class: 'notice notice-error', role: 'alert' }, `Nothing was saved: ${errorText(e)}`));
          summary.focus();
        }
      }
    });
  });
  return form;
}

async function list(root, ctx) {
  const [r, failing] = await Promise.all([
    api.get('/api/settings/webhooks'),
    api.get(`/api/deliveries${qs({ state: 'failed', limit: 200 })}`),
  ]);
  if (!ctx.isCurrent()) return;
  const failed = {};
  for (const d of failing.data) failed[d.endpointId] = (failed[d.endpointId] || 0) + 1;
  const rows = r.data.map((w) => el('tr', {},
    el('th', { scope: 'row', class: 'url' }, el('a', { href: `#/webhooks/${enc(w.id)}` }, w.url), w.description ? el('div', { class: 'hint' }, w.description) : null),
    el('td', {}, w.events.length ? w.events.join(', ') : 'every event'),
    el('td', {}, w.enabled ? el('span', { class: 'badge badge-acknowledged' }, 'Enabled') : el('span', { class: 'badge badge-canceled' }, 'Disabled')),
    el('td', { class: 'num' }, failed[w.id] ? el('a', { href: `#/webhooks/${enc(w.id)}` }, `${failed[w.id]}${failing.nextCursor ? '+' : ''} failed`) : '0'),
    el('td', {}, time(w.updatedAt, true))));
  fill(root,
    heading('Webhooks', 'Where the gateway tells your systems what happened to each document, signed with each endpoint\'s secret.'),
    table('Webhook endpoints', ['Endpoint', 'Events', 'State', 'Failed deliveries', 'Updated'], rows, 'No endpoint yet.'),
    session.me.user.role === 'admin' ? endpointForm(null, { ...ctx, reload: () => list(root, ctx) }) : null);
}

function deliveryLog(w, deliveries, ctx, reload) {
  const state = el('select', { id: 'd-state' },
    [['', 'Every state'], ['failed', 'Failed'], ['pending', 'Pending'], ['delivered', 'Delivered']].map(([v, l]) => el('option', { value: v, selected: (ctx.query.get('state') || '') === v }, l)));
  state.addEventListener('change', () => ctx.go(`#/webhooks/${enc(w.id)}${qs({ state: state.value })}`));
  const rows = deliveries.data.map((d) => {
    const b = el('button', { type: 'button', class: 'button small', 'aria-label': `Redeliver ${d.event} of ${d.documentId}` }, 'Redeliver…');
    b.addEventListener('click', async () => {
      const ok = await confirmAction({
        title: `Redeliver the ${d.event} webhook?`,
        lines: [`One more signed attempt to ${d.url} now, with the same delivery id (${d.id}): a receiver that has it already drops it.`],
        action: 'Redeliver',
      });
      if (!ok) return;
      await busy(b, async () => {
        try {
          await api.post(`/api/deliveries/${enc(d.id)}/redeliver`);
          say('Redelivery queued.', 'ok');
          await reload();
        } catch (e) {
          say(`Could not redeliver: ${errorText(e)}`, 'error');
        }
      });
    });
    const last = d.attemptLog[d.attemptLog.length - 1];
    return el('tr', {},
      el('td', {}, time(d.createdAt, true)),
      el('td', {}, d.event),
      el('td', {}, el('a', { href: `#/documents/${enc(d.documentId)}` }, d.documentId)),
      el('td', {}, badge(d.state)),
      el('td', { class: 'num' }, d.attempts),
      el('td', {}, d.lastResult ?? '—', last ? el('div', { class: 'hint' }, time(last.at, true), last.durationMs !== undefined ? ` · ${last.durationMs} ms` : '') : null,
        d.nextAttemptAt ? el('div', { class: 'hint' }, 'next ', time(d.nextAttemptAt, true)) : null),
      el('td', {}, b));
  });
  return el('section', { class: 'panel', 'aria-labelledby': 'log-h' },
    el('h2', { id: 'log-h' }, 'Delivery log'),
    el('div', { class: 'field inline' }, el('label', { for: state.id }, 'Show'), state),
    table('Deliveries to this endpoint, newest first', ['Created', 'Event', 'Document', 'State', 'Attempts', 'Last result', ''], rows, 'No delivery.'),
    deliveries.nextCursor ? el('p', { class: 'hint' }, 'Showing the newest 100.') : null);
}

async function endpoint(root, ctx) {
  const id = ctx.params[0];
  const [w, deliveries] = await Promise.all([
    api.get(`/api/settings/webhooks/${enc(id)}`).then((r) => r.data),
    api.get(`/api/deliveries${qs({ endpointId: id, state: ctx.query.get('state') || '', limit: 100 })}`),
  ]);
  if (!ctx.isCurrent()) return;
  const admin = session.me.user.role === 'admin';
  const reload = () => endpoint(root, ctx);
  const testResult = el('div', { id: 'test-result', 'aria-live': 'polite' });
  const tools = [];
  if (admin) {
    const test = el('button', { type: 'button', class: 'button', id: 'send-test' }, 'Send a test delivery');
    test.addEventListener('click', () => busy(test, async () => {
      fill(testResult, el('p', { class: 'muted' }, 'Sending…'));
      try {
        const t = (await api.post(`/api/settings/webhooks/${enc(id)}/test`)).data;
        const ok = t.result === 'delivered';
        fill(testResult,
          el('div', { class: `notice ${ok ? 'notice-ok' : 'notice-error'}` },
            el('p', {}, el('strong', {}, ok ? 'Delivered: ' : 'Not delivered: '), `${t.event} to ${t.url} → ${t.result}${t.httpStatus ? ` (HTTP ${t.httpStatus})` : ''} in ${t.durationMs} ms.`),
            t.responseBody ? [el('p', {}, 'The endpoint answered:'), el('pre', { class: 'block small', tabindex: '0', 'aria-label': 'The endpoint\'s answer' }, t.responseBody)] : null,
            el('p', { class: 'hint' }, `Delivery id ${t.deliveryId}; a test is not stored or retried.`)));
      } catch (e) {
        fill(testResult, el('p', { class: 'notice notice-error', role: 'alert' }, `Could not send the test: ${errorText(e)}`));
      }
    }));
    const overlap = el('select', { id: 'overlap' },
      [[3600, 'for an hour'], [86400, 'for a day'], [604800, 'for a week'], [0, 'not at all']].map(([v, l]) => el('option', { value: v, selected: v === 86400 }, l)));
    const rotate = el('button', { type: 'button', class: 'button', id: 'rotate' }, 'Rotate the secret…');
    rotate.addEventListener('click', async () => {
      const ok = await confirmAction({
        title: 'Rotate the signing secret?',
        lines: [`A new secret signs from now on; the current one keeps signing beside it ${overlap.selectedOptions[0].textContent}, so your receiver can move to the new one without losing a delivery.`],
        action: 'Rotate',
      });
      if (!ok) return;
      await busy(rotate, async () => {
        try {
          const r = (await api.post(`/api/settings/webhooks/${enc(id)}/rotate-secret`, { overlapSeconds: Number(overlap.value) })).data;
          await showOnce({ title: 'The new signing secret', label: 'Signing secret (shown once)', secret: r.secret, lines: ['Give it to your receiver now: it is not shown again.'] });
          say('The secret was rotated.', 'ok');
          await reload();
        } catch (e) {
          say(`Could not rotate the secret: ${errorText(e)}`, 'error');
        }
      });
    });
    const remove = el('button', { type: 'button', class: 'button danger', id: 'delete-endpoint' }, 'Delete…');
    remove.addEventListener('click', async () => {
      const ok = await confirmAction({ title: `Delete ${w.url}?`, lines: ['It receives nothing more: its pending deliveries end unsent. Its delivery log stays.'], action: 'Delete the endpoint', danger: true });
      if (!ok) return;
      await busy(remove, async () => {
        try {
          await api.del(`/api/settings/webhooks/${enc(id)}`);
          say(`Deleted ${w.url}.`, 'ok');
          ctx.go('#/webhooks');
        } catch (e) {
          say(`Could not delete: ${errorText(e)}`, 'error');
        }
      });
    });
    tools.push(test, el('span', { class: 'tool' }, rotate, ' ', el('label', { for: overlap.id }, 'old secret signs too '), overlap), remove);
  }
  fill(root,
    el('p', { class: 'crumbs' }, el('a', { href: '#/webhooks' }, '← Webhooks')),
    heading(w.url, w.description || null),
    tools.length ? el('div', { class: 'actions wrap' }, tools) : null,
    testResult,
    el('div', { class: 'grid-2' },
      endpointForm(w, { ...ctx, reload }),
      el('section', { class: 'panel', 'aria-labelledby': 'secrets-h' },
        el('h2', { id: 'secrets-h' }, 'Signing secrets'),
        table('The signing secrets in use', ['Since', 'Signs until'], w.secrets.map((s) => el('tr', {},
          el('td', {}, time(s.createdAt, true)),
          el('td', {}, s.expiresAt ? time(s.expiresAt, true) : 'until it is rotated'))), 'No secret.'),
        el('p', { class: 'hint' }, 'Secrets are stored sealed and never shown again after they are made.'))),
    deliveryLog(w, deliveries, ctx, reload));
}

export async function render(root, ctx) {
  if (ctx.mode === 'endpoint') return endpoint(root, ctx);
  return list(root, ctx);
}
