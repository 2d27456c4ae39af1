// Trading partners (GET|POST /api/settings/partners, GET|PUT
// /api/settings/partners/{id}): the list, a new partner, a partner edited with
// the core's problems shown at their fields, disabled. Members read; admins change.
import { api, enc, session } from '../api.js';
import { badge, busy, confirmAction, el, errorText, field, fill, heading, say, showProblems, table, time } from '../ui.js';

const MAIN = ['id', 'name', 'sender', 'receiver', 'version', 'usage', 'acknowledgementRequested'];

function describeTransport(t) {
  if (!t) return 'none';
  if (t.kind === 'http') return `HTTP POST ${t.url}`;
  if (t.kind === 'directory') return `folder ${t.outbox}${t.inbox ? ` (inbox ${t.inbox})` : ''}`;
  if (t.kind === 'sftp') return `SFTP ${t.user}@${t.host}${t.port ? `:${t.port}` : ''} ${t.outboundDir}`;
  if (t.kind === 'as2') return `AS2 ${t.as2To} at ${t.url}`;
  return t.kind;
}

/** A starting point for a transport edited as JSON (the settings API's fields). */
const SKELETONS = {
  sftp: { kind: 'sftp', host: 'sftp.partner.example', port: 22, user: 'edi', hostKeySha256: 'SHA256:…', privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----…', outboundDir: '/inbound', inboundDir: '/outbound' },
  as2: { kind: 'as2', url: 'https://as2.partner.example/as2', as2From: 'OURS', as2To: 'THEIRS', partnerCertificate: '-----BEGIN CERTIFICATE-----…', ourCertificate: '-----BEGIN CERTIFICATE-----…', ourPrivateKey: '-----BEGIN PRIVATE KEY-----…' },
};

async function list(root, { isCurrent }) {
  const r = await api.get('/api/settings/partners');
  if (!isCurrent()) return;
  const admin = session.me.user.role === 'admin';
  const rows = r.data.map((p) => el('tr', {},
    el('th', { scope: 'row' }, el('a', { href: `#/partners/${enc(p.id)}` }, p.id), p.profile.name ? el('div', { class: 'hint' }, p.profile.name) : null),
    el('td', {}, `${p.profile.sender.qualifier}:${p.profile.sender.id}`),
    el('td', {}, `${p.profile.receiver.qualifier}:${p.profile.receiver.id}`),
    el('td', {}, p.profile.version || '004010'),
    el('td', { class: 'url' }, describeTransport(p.transport)),
    el('td', {}, p.enabled ? el('span', { class: 'badge badge-acknowledged' }, 'Enabled') : el('span', { class: 'badge badge-canceled' }, 'Disabled')),
    el('td', {}, time(p.updatedAt, true)),
    el('td', {}, el('a', { href: `#/documents?partnerId=${enc(p.id)}` }, 'Documents'))));
  fill(root,
    heading('Trading partners', 'Who you exchange X12 with: the envelope ids, the version, how documents reach them.'),
    admin ? el('p', {}, el('a', { class: 'button primary', href: '#/partners/new', id: 'new-partner' }, 'New trading partner')) : null,
    table('Trading partners', ['Partner', 'Our id (sender)', 'Their id (receiver)', 'Version', 'Transport', 'State', 'Updated', ''], rows, 'No trading partner yet.'));
}

/** The form of a partner (`p` null for a new one). */
function form(root, p, { go }) {
  const admin = session.me.user.role === 'admin';
  const editing = Boolean(p);
  const prof = p ? p.profile : { sender: {}, receiver: {}, version: '004010', usage: 'production' };
  const t = (p && p.transport) || { kind: 'directory' };
  const input = (id, value, attrs = {}) => el('input', { id, value: value ?? '', autocomplete: 'off', spellcheck: 'false', disabled: !admin, ...attrs });
  const f = {
    id: input('p-id', p ? p.id : '', { required: true, disabled: editing || !admin, placeholder: 'acme-retail' }),
    name: input('p-name', prof.name, { placeholder: 'ACME Retail' }),
    sq: input('p-sender-qualifier', prof.sender.qualifier, { maxlength: '2', class: 'short', placeholder: 'ZZ' }),
    sid: input('p-sender-id', prof.sender.id, { maxlength: '15', placeholder: 'WIDGETSUPPLY' }),
    sapp: input('p-sender-app', prof.sender.applicationCode, { maxlength: '15' }),
    rq: input('p-receiver-qualifier', prof.receiver.qualifier, { maxlength: '2', class: 'short', placeholder: '01' }),
    rid: input('p-receiver-id', prof.receiver.id, { maxlength: '15', placeholder: '123456789' }),
    rapp: input('p-receiver-app', prof.receiver.applicationCode, { maxlength: '15' }),
    version: input('p-version', prof.version, { maxlength: '6', class: 'short', placeholder: '004010' }),
    usage: el('select', { id: 'p-usage', disabled: !admin },
      ['production', 'test', 'information'].map((u) => el('option', { value: u, selected: (prof.usage || 'production') === u }, u))),
    ackReq: el('input', { id: 'p-ack-requested', type: 'checkbox', checked: Boolean(prof.acknowledgementRequested), disabled: !admin }),
    more: el('textarea', { id: 'p-more', rows: '6', spellcheck: 'false', disabled: !admin }),
    kind: el('select', { id: 't-kind', disabled: !admin },
      [['directory', 'Drop folder (a local or mounted folder)'], ['http', 'HTTP POST'], ['sftp', 'SFTP (settings as JSON)'], ['as2', 'AS2 (settings as JSON)']].map(([v, l]) => el('option', { value: v, selected: t.kind === v }, l))),
    remote: el('textarea', { id: 't-remote', rows: '10', spellcheck: 'false', disabled: !admin }),
    outbox: input('t-outbox', t.outbox, { placeholder: 'acme/outbox' }),
    inbox: input('t-inbox', t.inbox, { placeholder: 'acme/inbox' }),
    url: input('t-url', t.url, { type: 'url', placeholder: 'https://partner.example/edi' }),
    headers: el('textarea', { id: 't-headers', rows: '3', spellcheck: 'false', disabled: !admin, placeholder: 'X-Api-Key: …' }),
    retries: input('t-retries', t.retries ?? 3, { type: 'number', min: '0', class: 'short' }),
    backoff: input('t-backoff', t.backoffMs ?? 500, { type: 'number', min: '0', class: 'short' }),
    timeout: input('t-timeout', t.timeoutMs ?? 10000, { type: 'number', min: '1', class: 'short' }),
    window: input('p-window', p && p.ackWindowSeconds !== null && p.ackWindowSeconds !== undefined ? p.ackWindowSeconds : '', { type: 'number', min: '1', class: 'short', placeholder: '86400' }),
    answer: el('select', { id: 'p-answer', disabled: !admin },
      [['', 'No'], ['997', 'With a 997'], ['999', 'With a 999']].map(([v, l]) => el('option', { value: v, selected: ((p && p.acknowledgeInbound) || '') === v }, l))),
    enabled: el('input', { id: 'p-enabled', type: 'checkbox', checked: p ? p.enabled : true, disabled: !admin }),
  };
  const more = Object.fromEntries(Object.entries(prof).filter(([k]) => !MAIN.includes(k) && k !== '$schema'));
  f.more.value = Object.keys(more).length ? JSON.stringify(more, null, 2) : '';
  f.headers.value = Object.entries(t.headers || {}).map(([k, v]) => `${k}: ${v}`).join('\n');
  const httpBox = el('div', { class: 'transport-http' },
    field('URL', f.url),
    field('Headers (one “Name: value” a line)', f.headers, 'Stored sealed; shown as ******** (leave it so to keep the stored value).'),
    el('div', { class: 'row' }, field('Retries', f.retries), field('First backoff (ms)', f.backoff), field('Timeout (ms)', f.timeout)));
  const dirBox = el('div', { class: 'transport-directory' },
    field('Outbox folder (we write interchanges here)', f.outbox, 'Relative to the server\'s files folder for this account.'),
    field('Inbox folder (their acknowledgements and documents)', f.inbox, 'Optional.'));
  const remoteBox = el('div', { class: 'transport-remote' },
    field('Transport settings (JSON)', f.remote, 'The settings API\'s fields of the kind (see the server README, SFTP and AS2 partners); stored credentials show as ******** and are kept when left so.'));
  f.remote.value = t.kind === 'sftp' || t.kind === 'as2' ? JSON.stringify(t, null, 2) : '';
  const showKind = () => {
    const k = f.kind.value;
    httpBox.hidden = k !== 'http';
    dirBox.hidden = k !== 'directory';
    remoteBox.hidden = k !== 'sftp' && k !== 'as2';
    if (!remoteBox.hidden) {
      let current = null;
      try {
        current = JSON.parse(f.remote.value);
      } catch {
        current = null;
      }
      if (!current || current.kind !== k) f.remote.value = JSON.stringify(SKELETONS[k], null, 2);
    }
  };
  f.kind.addEventListener('change', showKind);
  showKind();
  const summary = el('div', { id: 'partner-problems', tabindex: '-1' });
  const save = el('button', { type: 'submit', class: 'button primary', id: 'save-partner' }, editing ? 'Save the changes' : 'Create the partner');
  const pointers = {
    '/id': f.id, '/profile/id': f.id, '/profile/name': f.name,
    '/profile/sender/qualifier': f.sq, '/profile/sender/id': f.sid, '/profile/sender/applicationCode': f.sapp, '/profile/sender': f.sid,
    '/profile/receiver/qualifier': f.rq, '/profile/receiver/id': f.rid, '/profile/receiver/applicationCode': f.rapp, '/profile/receiver': f.rid,
    '/profile/version': f.version, '/profile/usage': f.usage, '/profile/acknowledgementRequested': f.ackReq, '/profile': f.more,
    '/transport/kind': f.kind, '/transport/url': f.url, '/transport/headers': f.headers, '/transport/retries': f.retries,
    '/transport/backoffMs': f.backoff, '/transport/timeoutMs': f.timeout, '/transport/outbox': f.outbox, '/transport/inbox': f.inbox,
    '/transport': f.kind, '/ackWindowSeconds': f.window, '/acknowledgeInbound': f.answer, '/enabled': f.enabled,
  };
  const legend = (text) => el('legend', {}, text);
  const theForm = el('form', { class: 'partner-form', novalidate: true },
    summary,
    el('fieldset', {}, legend('The partner'),
      el('div', { class: 'row' }, field('Partner id (the API\'s partnerId)', f.id, editing ? 'An id does not change.' : '1 to 64 of A–Z a–z 0–9 . _ -'), field('Name', f.name))),
    el('fieldset', {}, legend('Our interchange id (ISA05/ISA06, GS02)'),
      el('div', { class: 'row' }, field('Qualifier', f.sq), field('Id', f.sid), field('Application code', f.sapp, 'Default: the id.'))),
    el('fieldset', {}, legend('Their interchange id (ISA07/ISA08, GS03)'),
      el('div', { class: 'row' }, field('Qualifier', f.rq), field('Id', f.rid), field('Application code', f.rapp, 'Default: the id.'))),
    el('fieldset', {}, legend('X12'),
      el('div', { class: 'row' }, field('Version (GS08)', f.version), field('Usage (ISA15)', f.usage),
        el('div', { class: 'field checkbox' }, f.ackReq, el('label', { for: f.ackReq.id }, 'Ask for a TA1 (ISA14)'))),
      field('More profile settings (JSON: versions per type, delimiters, lineBreak, requiredFields, authorization, security)', f.more, 'The rest of the core\'s partner profile (schema/partner.schema.json), as JSON; empty for none.')),
    el('fieldset', {}, legend('How documents reach them'),
      field('Transport', f.kind), dirBox, httpBox, remoteBox),
    el('fieldset', {}, legend('Acknowledgements'),
      el('div', { class: 'row' },
        field('Acknowledgement window (seconds)', f.window, 'A routed document without their TA1/997/999 in this time fails. Empty: none awaited.'),
        field('Answer their documents', f.answer))),
    el('div', { class: 'field checkbox' }, f.enabled, el('label', { for: f.enabled.id }, 'Enabled: takes new documents')),
    admin ? el('div', { class: 'form-buttons' }, save, el('a', { class: 'button', href: '#/partners' }, 'Back to the list')) : el('p', { class: 'hint' }, 'Only admins change partners.'));

  function body() {
    const problems = [];
    let extra = {};
    if (f.more.value.trim()) {
      try {
        extra = JSON.parse(f.more.value);
        if (!extra || typeof extra !== 'object' || Array.isArray(extra)) throw new Error('not an object');
      } catch (e) {
        problems.push({ pointer: '/profile', message: `More profile settings must be a JSON object: ${e.message}` });
      }
    }
    const headers = {};
    for (const line of f.headers.value.split('\n')) {
      if (!line.trim()) continue;
      const cut = line.indexOf(':');
      if (cut <= 0) problems.push({ pointer: '/transport/headers', message: `“${line.trim()}” is not “Name: value”` });
      else headers[line.slice(0, cut).trim()] = line.slice(cut + 1).trim();
    }
    const party = (q, id, app) => {
      const o = { qualifier: q.value.trim(), id: id.value.trim() };
      if (app.value.trim()) o.applicationCode = app.value.trim();
      return o;
    };
    const profile = {
      ...extra,
      id: f.id.value.trim(),
      sender: party(f.sq, f.sid, f.sapp),
      receiver: party(f.rq, f.rid, f.rapp),
      usage: f.usage.value,
    };
    if (f.name.value.trim()) profile.name = f.name.value.trim();
    if (f.version.value.trim()) profile.version = f.version.value.trim();
    if (f.ackReq.checked) profile.acknowledgementRequested = true;
    const num = (i) => (i.value === '' ? undefined : Number(i.value));
    let transport;
    if (f.kind.value === 'http') {
      transport = { kind: 'http', url: f.url.value.trim(), headers, retries: num(f.retries), backoffMs: num(f.backoff), timeoutMs: num(f.timeout) };
    } else if (f.kind.value === 'directory') {
      transport = { kind: 'directory', outbox: f.outbox.value.trim(), ...(f.inbox.value.trim() ? { inbox: f.inbox.value.trim() } : {}) };
    } else {
      try {
        transport = JSON.parse(f.remote.value);
      } catch (e) {
        problems.push({ pointer: '/transport', message: `The transport settings must be JSON: ${e.message}` });
      }
    }
    const b = { profile, transport, enabled: f.enabled.checked };
    if (!editing) b.id = f.id.value.trim();
    else b.version = p.version;
    if (f.window.value !== '') b.ackWindowSeconds = num(f.window);
    if (f.answer.value) b.acknowledgeInbound = f.answer.value;
    return { b, problems };
  }

  theForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    // The problems of an SFTP or AS2 transport are shown at its JSON.
    pointers['/transport'] = f.kind.value === 'sftp' || f.kind.value === 'as2' ? f.remote : f.kind;
    const { b, problems } = body();
    if (problems.length) {
      showProblems(theForm, summary, problems, pointers);
      return;
    }
    await busy(save, async () => {
      try {
        const r = editing
          ? await api.put(`/api/settings/partners/${enc(p.id)}`, b)
          : await api.post('/api/settings/partners', b);
        say(editing ? `Saved ${r.data.id} (version ${r.data.version}).` : `Created the trading partner ${r.data.id}.`, 'ok');
        go(`#/partners/${enc(r.data.id)}`);
      } catch (e) {
        if (e.details.length) showProblems(theForm, summary, e.details, pointers);
        else {
          fill(summary, el('p', { class: 'notice notice-error', role: 'alert' }, e.code === 'VERSION_CONFLICT'
            ? 'Someone changed this partner since you opened it: reload the page to see their change, then make yours again.'
            : `Nothing was saved: ${errorText(e)}`));
          summary.focus();
        }
      }
    });
  });
  return theForm;
}

async function edit(root, ctx) {
  const id = ctx.params[0];
  const p = (await api.get(`/api/settings/partners/${enc(id)}`)).data;
  if (!ctx.isCurrent()) return;
  const admin = session.me.user.role === 'admin';
  let toggle = null;
  if (admin) {
    toggle = el('button', { type: 'button', class: `button ${p.enabled ? 'danger' : ''}`, id: 'toggle-partner' }, p.enabled ? 'Disable…' : 'Enable');
    toggle.addEventListener('click', async () => {
      if (p.enabled) {
        const ok = await confirmAction({
          title: `Disable ${p.id}?`,
          lines: ['It takes no new documents (the API answers 409 PARTNER_DISABLED); documents already accepted are still routed.'],
          action: 'Disable the partner',
          danger: true,
        });
        if (!ok) return;
      }
      await busy(toggle, async () => {
        try {
          const { version, createdAt, updatedAt, id: pid, ...rest } = p;
          await api.put(`/api/settings/partners/${enc(pid)}`, { ...rest, enabled: !p.enabled, version });
          say(p.enabled ? `${p.id} is disabled.` : `${p.id} is enabled.`, 'ok');
          await edit(root, ctx);
        } catch (e) {
          say(`Could not change ${p.id}: ${errorText(e)}`, 'error');
        }
      });
    });
  }
  // Tries the connection without sending anything (POST .../test-connection).
  const checked = el('div', { id: 'connection-result', 'aria-live': 'polite' });
  let check = null;
  if (admin && p.transport) {
    check = el('button', { type: 'button', class: 'button', id: 'test-connection' }, 'Test the connection');
    check.addEventListener('click', () => busy(check, async () => {
      fill(checked, el('p', { class: 'muted' }, 'Connecting…'));
      try {
        const r = (await api.post(`/api/settings/partners/${enc(p.id)}/test-connection`)).data;
        fill(checked, el('div', { class: `notice ${r.ok === false ? 'notice-error' : 'notice-ok'}` },
          el('p', {}, el('strong', {}, r.ok === false ? 'The connection failed: ' : 'Connected: '), r.result || r.message || ''),
          el('pre', { class: 'block small', tabindex: '0', 'aria-label': 'What the test found' }, JSON.stringify(r, null, 2))));
      } catch (e) {
        fill(checked, el('p', { class: 'notice notice-error', role: 'alert' }, `The connection failed: ${errorText(e)}`));
      }
    }));
  }
  fill(root,
    el('p', { class: 'crumbs' }, el('a', { href: '#/partners' }, '← Trading partners')),
    heading(`Trading partner ${p.id}`, p.profile.name || null),
    el('div', { class: 'doc-head' },
      el('p', {}, p.enabled ? el('span', { class: 'badge badge-acknowledged' }, 'Enabled') : el('span', { class: 'badge badge-canceled' }, 'Disabled'),
        ` version ${p.version}, updated `, time(p.updatedAt)),
      el('div', { class: 'actions' }, el('a', { class: 'button', href: `#/documents?partnerId=${enc(p.id)}` }, 'Its documents'), check, toggle)),
    checked,
    form(root, p, ctx));
}

export async function render(root, ctx) {
  if (ctx.mode === 'new') {
    fill(root,
      el('p', { class: 'crumbs' }, el('a', { href: '#/partners' }, '← Trading partners')),
      heading('New trading partner', 'The core checks the profile: each problem is shown at its field.'),
      form(root, null, ctx));
    return;
  }
  if (ctx.mode === 'edit') return edit(root, ctx);
  return list(root, ctx);
}

