// One document (GET /api/v1/transactions/{id}): what it is, its actions
// (resend, cancel: POST /api/v1/transactions/{id}/resend|cancel; redeliver a
// webhook: POST /api/deliveries/{id}/redeliver), its timeline, the partner's
// acknowledgement, the routing attempts, the webhook deliveries, the X12 in the
// WASM package's inspector (bindings/wasm/www/inspector.js) and the mapped document.
import { api, enc } from '../api.js';
import { badge, busy, confirmAction, el, errorText, fill, heading, jsonBlock, say, scroller, table, time } from '../ui.js';
import { documentTypes } from './types.js';

let wasm = null; // the x12kit WASM module once loaded (or the reason it is not there)

/** Loads the WASM package the server serves (/assets/wasm/), once. */
function loadWasm() {
  wasm = wasm || (async () => {
    const x12 = await import('/assets/wasm/x12kit_wasm.js');
    await x12.default({ module_or_path: '/assets/wasm/x12kit_wasm_bg.wasm' });
    return x12;
  })();
  return wasm;
}

/** While a document is on its way (queued, validated), looks at it again every
 * two seconds for a minute and shows it anew once its status moves. */
function watch(id, status, isCurrent, reload, left = 30) {
  setTimeout(async () => {
    if (!isCurrent() || !left) return;
    try {
      const now = (await api.get(`/api/v1/transactions/${enc(id)}`)).data.status;
      if (!isCurrent()) return;
      if (now !== status) {
        await reload();
        return;
      }
    } catch {
      // The next look may work.
    }
    watch(id, status, isCurrent, reload, left - 1);
  }, 2000);
}

function facts(pairs) {
  return el('dl', { class: 'facts' }, pairs.filter(Boolean).map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

function timeline(history) {
  return el('ol', { class: 'timeline' }, history.map((h) => el('li', {},
    el('div', { class: 'timeline-when' }, time(h.at)),
    el('div', {}, badge(h.status), ' ', el('span', { class: 'reason' }, h.reason)))));
}

/** The partner's TA1/997/999 as the core read it, every code with its meaning. */
function acknowledgement(ack) {
  if (!ack) return el('p', { class: 'muted' }, 'No acknowledgement from the partner yet.');
  const parts = [];
  const g = ack.group;
  if (g) {
    parts.push(facts([
      ['Acknowledgement', `${g.kind} (control number ${g.ackControlNumber}, in interchange ${g.carriedBy})`],
      ["Group", `${g.functionalId} ${g.groupControlNumber}`],
      ['Group verdict', el('span', {}, badge(g.status === 'accepted' ? 'acknowledged' : 'failed'), ` ${g.code} — ${g.status ?? 'unreadable'}${g.included !== null && g.included !== undefined ? `: ${g.accepted} of ${g.included} sets accepted` : ''}`)],
    ]));
    const errs = (g.errors || []).map((e) => el('li', {}, el('code', {}, e.code), ` ${e.description}`));
    if (errs.length) parts.push(el('p', {}, 'Group errors:'), el('ul', {}, errs));
    const rows = (g.transactions || []).map((t) => el('tr', {},
      el('td', {}, `${t.type} ${t.controlNumber}`),
      el('td', {}, `${t.code} ${t.status ?? ''}`),
      el('td', {},
        (t.errors || []).map((e) => el('div', {}, el('code', {}, e.code), ` ${e.description}`)),
        (t.segmentErrors || []).map((s) => el('div', {},
          `Segment ${s.segmentId}${s.position ? ` (position ${s.position})` : ''}: `,
          s.error ? [el('code', {}, s.error.code), ` ${s.error.description}`] : null,
          (s.elements || []).map((x) => el('div', { class: 'indent' },
            `element ${x.position ?? '?'}${x.value !== undefined ? ` (value ${JSON.stringify(x.value)})` : ''}: `,
            el('code', {}, x.error.code), ` ${x.error.description}`)))))));
    parts.push(table('Sets acknowledged', ['Set', 'Code', 'Errors'], rows));
  }
  const ta1 = ack.ta1;
  if (ta1 && (ta1.code || ta1.note)) {
    parts.push(facts([
      ['TA1', `${ta1.code ?? ''} ${ta1.status ?? ''} (interchange ${ta1.controlNumber ?? ''})`],
      ta1.note ? ['TA1 note', el('span', {}, el('code', {}, ta1.note.code), ` ${ta1.note.description}`)] : null,
    ]));
  }
  if (!parts.length) parts.push(jsonBlock(ack, 'The partner\'s acknowledgement'));
  return el('div', {}, parts);
}

function attempts(list) {
  if (!list || !list.length) return el('p', { class: 'muted' }, 'Not routed yet.');
  return table('Routing attempts, oldest first', ['When', 'Result', 'Duration', 'Note'], list.map((a) => el('tr', {},
    el('td', {}, a.at ? time(a.at) : '—'),
    el('td', {}, a.result ?? ''),
    el('td', { class: 'num' }, a.durationMs !== undefined ? `${a.durationMs} ms` : ''),
    el('td', {}, a.resend ? `resend ${a.resend}` : a.resent ? 'resent after an interrupted attempt' : ''))));
}

/** The findings of the partner's guides on an inbound set (`diagnostics` with
 * `guides`: recorded when the document was received), or null without guides. */
function guideSection(d) {
  const g = d.diagnostics;
  if (!g || !Array.isArray(g.guides)) return null;
  const found = (g.diagnostics || []).filter((x) => String(x.code).startsWith('GUIDE_'));
  const rows = found.map((x) => {
    const a = x.ack || {};
    return el('tr', {},
      el('td', {}, el('code', {}, x.code)),
      el('td', {}, x.message),
      el('td', {}, x.segmentIndex !== undefined ? `#${x.segmentIndex} ${x.segmentId || ''}` : ''),
      el('td', {}, x.element ?? ''),
      el('td', {}, [a.ik3 && `IK304 ${a.ik3}`, a.ik4 && `IK403 ${a.ik4}`].filter(Boolean).join(', ')),
      el('td', {}, el('code', {}, x.guidePointer || '')));
  });
  return el('section', { class: 'panel', id: 'guide-findings', 'aria-labelledby': 'guide-h' },
    el('h2', { id: 'guide-h' }, `Partner guide findings (${found.length})`),
    el('p', { class: found.length ? 'notice notice-error' : 'muted' }, found.length
      ? `The set breaks the partner's guide (${g.guides.join(', ')}) in ${found.length} place${found.length === 1 ? '' : 's'}; a 999 answering it carries the implementation codes.`
      : `The set keeps the partner's guide (${g.guides.join(', ')}).`),
    rows.length ? table('Partner guide findings', ['Code', 'Message', 'Segment', 'Element', '999', 'Guide rule'], rows, '') : null);
}

async function inspectorSection(d) {
  const box = el('div', { class: 'x12-box' });
  if (!d.x12) return fill(box, el('p', { class: 'muted' }, 'No X12 for this document.'));
  const rawText = d.x12;
  let x12;
  try {
    x12 = await loadWasm();
  } catch (e) {
    return fill(box,
      el('p', { class: 'notice notice-info', id: 'inspector-missing' },
        'The inspector (segment names, element meanings, diagnostics) needs the x12kit WebAssembly package, which this server has not found: build it with ',
        el('code', {}, 'bindings/wasm/build.sh'), ' and reload this page. The X12 as it is:'),
      el('pre', { class: 'block', tabindex: '0', 'aria-label': 'The X12' }, rawText));
  }
  const { createInspector, rawSegments } = await import('/assets/inspector.js');
  const bytes = new TextEncoder().encode(rawText);
  const validation = x12.validate(bytes, { structure: true });
  const { segments, total } = rawSegments(x12, bytes);
  const raw = el('pre', { id: 'raw', class: 'raw', tabindex: '0', 'aria-label': 'The X12 segments; use the up and down arrow keys to move between segments', 'aria-describedby': 'inspector-title' });
  const title = el('h3', { id: 'inspector-title' }, 'No segment selected');
  const context = el('p', { id: 'inspector-context', class: 'hint' });
  const itable = el('table', { id: 'inspector-table' },
    el('thead', {}, el('tr', {}, ['Element', 'Name', 'Value', 'Meaning'].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody'));
  const note = el('p', { class: 'hint' });
  const count = el('span', { class: 'muted' });
  const diags = el('table', { id: 'diagnostics' },
    el('caption', { class: 'visually-hidden' }, 'Diagnostics of the X12'),
    el('thead', {}, el('tr', {}, ['Show', 'Severity', 'Code', 'Message', 'Segment', 'Element', 'Byte'].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody'));
  const status = el('p', { class: 'hint', role: 'status', id: 'inspector-status' });
  const inspector = createInspector({
    raw, title, context, table: itable, note, diagnostics: diags, count,
    describe: async (set, version, id) => {
      try {
        return { info: x12.describeSegment(set, version, id), error: null };
      } catch (e) {
        return { info: null, error: { message: e.message, code: e.code } };
      }
    },
    status: (t) => fill(status, t),
  });
  fill(box,
    el('p', { class: `verdict ${validation.valid ? 'ok' : 'bad'}` }, validation.valid
      ? `The X12 is valid (x12kit, envelope and set structure): ${validation.warningCount} warning${validation.warningCount === 1 ? '' : 's'}.`
      : `A partner would reject this X12: ${validation.errorCount} error${validation.errorCount === 1 ? '' : 's'}, ${validation.warningCount} warning${validation.warningCount === 1 ? '' : 's'}.`),
    el('h3', {}, 'Diagnostics ', count),
    el('p', { class: 'hint' }, 'Choose a row to show its segment in the X12 below.'),
    scroller('Diagnostics', diags),
    status,
    el('div', { class: 'raw-grid' },
      raw,
      el('aside', { id: 'inspector', 'aria-labelledby': 'inspector-title', 'aria-live': 'polite' }, title, context, scroller('The segment\'s elements', itable))),
    note,
    el('p', { class: 'hint' }, 'Click or hover a segment, or focus the X12 and use the ↑ and ↓ keys, to see its elements.'));
  inspector.show({ segments, total, diagnostics: validation.diagnostics, sep: rawText.charAt(3) || '*' });
  return box;
}

async function act(button, what, call, reload) {
  await busy(button, async () => {
    try {
      await call();
      say(what, 'ok');
      await reload();
    } catch (e) {
      say(`${what.replace(/\.$/, '')} failed: ${errorText(e)}`, 'error');
    }
  });
}

export async function render(root, { params, isCurrent }) {
  const id = params[0];
  const [r, types] = await Promise.all([api.get(`/api/v1/transactions/${enc(id)}`), documentTypes()]);
  if (!isCurrent()) return;
  const d = r.data;
  const type = types.find((t) => t.code === d.documentTypeCode);
  const name = `${d.documentTypeCode}${type ? ` ${type.name}` : ''}`;
  const reload = () => render(root, { params, isCurrent });
  const actions = [];
  if (d.direction === 'outbound' && (d.status === 'routed' || d.status === 'failed')) {
    const b = el('button', { type: 'button', class: 'button', id: 'resend' }, 'Resend to the partner…');
    b.addEventListener('click', async () => {
      const ok = await confirmAction({
        title: `Resend ${d.reference || d.documentId} to ${d.partnerId}?`,
        lines: [
          `The same interchange (ISA13 ${d.controlNumbers.interchange}) is handed to ${d.partnerId} again, as a new routing attempt.`,
          d.status === 'routed' ? 'It was routed already: the partner may receive it twice (it can tell by the control number).' : `It ${d.failureReason ? `failed: ${d.failureReason}` : 'failed'}.`,
        ],
        action: 'Resend',
      });
      if (ok) await act(b, 'Resend queued: the document is being routed again.', () => api.post(`/api/v1/transactions/${enc(id)}/resend`), reload);
    });
    actions.push(b);
  }
  if (d.direction === 'outbound' && (d.status === 'queued' || d.status === 'validated')) {
    const b = el('button', { type: 'button', class: 'button danger', id: 'cancel' }, 'Cancel the document…');
    b.addEventListener('click', async () => {
      const ok = await confirmAction({
        title: `Cancel ${d.reference || d.documentId}?`,
        lines: ['It will not be sent to the partner. This cannot be undone: to send it later, send it again.'],
        action: 'Cancel the document',
        danger: true,
      });
      if (ok) await act(b, 'The document was canceled.', () => api.post(`/api/v1/transactions/${enc(id)}/cancel`), reload);
    });
    actions.push(b);
  }
  const deliveries = d.webhookDeliveries.map((w) => {
    const b = el('button', { type: 'button', class: 'button small' }, 'Redeliver…');
    b.addEventListener('click', async () => {
      const ok = await confirmAction({
        title: `Redeliver the ${w.event} webhook?`,
        lines: [`One more signed attempt to ${w.url} now, with the same delivery id (${w.id}): a receiver that has it already drops it.`],
        action: 'Redeliver',
      });
      if (ok) await act(b, 'Redelivery queued.', () => api.post(`/api/deliveries/${enc(w.id)}/redeliver`), reload);
    });
    return el('tr', {},
      el('td', {}, w.event),
      el('td', { class: 'url' }, w.url),
      el('td', {}, badge(w.state)),
      el('td', { class: 'num' }, w.attempts),
      el('td', {}, w.lastResult ?? '—', w.nextAttemptAt ? [el('br'), el('span', { class: 'hint' }, 'next ', time(w.nextAttemptAt, true))] : null),
      el('td', {}, b));
  });
  const x12Section = el('section', { class: 'panel', 'aria-labelledby': 'x12-h' }, el('h2', { id: 'x12-h' }, 'X12'), el('p', { class: 'muted', role: 'status' }, 'Loading the inspector…'));
  const mapped = d.direction === 'inbound' ? d.document : d.payload;
  fill(root,
    el('p', { class: 'crumbs' }, el('a', { href: '#/documents' }, '← Documents')),
    heading(`${name} ${d.reference || ''}`.trim()),
    el('div', { class: 'doc-head' },
      el('p', { class: 'doc-status' }, badge(d.status), ' ', d.direction === 'outbound' ? `to ${d.partnerId}` : `from ${d.partnerId}`),
      actions.length ? el('div', { class: 'actions' }, actions) : null),
    d.failureReason ? el('p', { class: 'notice notice-error', id: 'failure' }, el('strong', {}, d.status === 'canceled' ? 'Canceled: ' : 'Why it failed: '), d.failureReason) : null,
    el('div', { class: 'grid-2' },
      el('section', { class: 'panel', 'aria-labelledby': 'facts-h' },
        el('h2', { id: 'facts-h' }, 'Document'),
        facts([
          ['Document id', el('code', {}, d.documentId)],
          ['Business reference', d.reference || el('span', { class: 'muted' }, 'none')],
          ['Type', name],
          ['Partner', el('a', { href: `#/partners/${enc(d.partnerId)}` }, d.partnerId)],
          ['Direction', d.direction],
          ['Created', time(d.createdAt)],
          ['Updated', time(d.updatedAt)],
          ['Control numbers', `ISA13 ${d.controlNumbers.interchange ?? '—'} · GS06 ${d.controlNumbers.group ?? '—'} · ST02 ${d.controlNumbers.transaction ?? '—'}`],
          d.acknowledgementDueAt ? ['Acknowledgement due', time(d.acknowledgementDueAt)] : null,
          d.resends ? ['Resends', String(d.resends)] : null,
        ])),
      el('section', { class: 'panel', 'aria-labelledby': 'timeline-h' },
        el('h2', { id: 'timeline-h' }, 'Timeline'),
        timeline(d.statusHistory))),
    d.direction === 'outbound' ? el('section', { class: 'panel', 'aria-labelledby': 'ack-h' },
      el('h2', { id: 'ack-h' }, 'Partner\'s acknowledgement'),
      acknowledgement(d.partnerAcknowledgement)) : null,
    d.direction === 'outbound' ? el('section', { class: 'panel', 'aria-labelledby': 'attempts-h' },
      el('h2', { id: 'attempts-h' }, 'Routing attempts'),
      attempts(d.routingAttempts)) : null,
    el('section', { class: 'panel', 'aria-labelledby': 'hooks-h' },
      el('h2', { id: 'hooks-h' }, 'Webhook deliveries'),
      table('Webhook deliveries about this document', ['Event', 'Endpoint', 'State', 'Attempts', 'Last result', ''], deliveries, 'No webhook delivery about this document.')),
    guideSection(d),
    x12Section,
    el('section', { class: 'panel', 'aria-labelledby': 'doc-h' },
      el('h2', { id: 'doc-h' }, d.direction === 'inbound' ? 'Mapped document' : 'Payload (the mapped document it was rendered from)'),
      mapped ? jsonBlock(mapped, 'The mapped document') : el('p', { class: 'muted' }, 'None.'),
      d.renderWarnings && d.renderWarnings.length ? [el('h3', {}, 'Render warnings'), jsonBlock(d.renderWarnings, 'Render warnings')] : null));
  if (d.direction === 'outbound' && (d.status === 'queued' || d.status === 'validated')) watch(id, d.status, isCurrent, reload);
  const box = await inspectorSection(d);
  if (isCurrent()) fill(x12Section, el('h2', { id: 'x12-h' }, 'X12'), box);
}
