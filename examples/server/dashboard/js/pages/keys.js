// API keys (GET|POST /api/settings/keys, DELETE /api/settings/keys/{id}): the
// new key shown once with a copy button, revoke, last use. Members read; admins change.
import { api, enc, session } from '../api.js';
import { badge, busy, confirmAction, el, errorText, field, fill, heading, say, showOnce, showProblems, table, time } from '../ui.js';

export async function render(root, { isCurrent }) {
  const r = await api.get('/api/settings/keys');
  if (!isCurrent()) return;
  const admin = session.me.user.role === 'admin';
  const reload = () => render(root, { isCurrent });
  const rows = r.data.map((k) => {
    let action = null;
    if (admin && !k.revokedAt) {
      action = el('button', { type: 'button', class: 'button small danger', 'aria-label': `Revoke the key ${k.name}` }, 'Revoke…');
      action.addEventListener('click', async () => {
        const ok = await confirmAction({
          title: `Revoke the key “${k.name}”?`,
          lines: [`Every request with it (${k.prefix || 'an imported key'}…) is refused from now on, in every process within a second. This cannot be undone: make a new key instead.`],
          action: 'Revoke the key',
          danger: true,
        });
        if (!ok) return;
        await busy(action, async () => {
          try {
            await api.del(`/api/settings/keys/${enc(k.id)}`);
            say(`The key “${k.name}” is revoked.`, 'ok');
            await reload();
          } catch (e) {
            say(`Could not revoke the key: ${errorText(e)}`, 'error');
          }
        });
      });
    }
    return el('tr', { 'data-key': k.id },
      el('th', { scope: 'row' }, k.name),
      el('td', {}, k.prefix ? el('code', {}, `${k.prefix}…`) : el('span', { class: 'muted' }, 'imported')),
      el('td', {}, time(k.createdAt, true)),
      el('td', {}, k.lastUsedAt ? time(k.lastUsedAt, true) : el('span', { class: 'muted' }, 'never')),
      el('td', {}, k.revokedAt ? [badge('failed'), ' revoked ', time(k.revokedAt, true)] : el('span', { class: 'badge badge-acknowledged' }, 'Active')),
      el('td', {}, action));
  });
  let form = null;
  if (admin) {
    const name = el('input', { id: 'key-name', required: true, maxlength: '100', autocomplete: 'off', placeholder: 'erp-production' });
    const summary = el('div', { id: 'key-problems' });
    const submit = el('button', { type: 'submit', class: 'button primary' }, 'Create a key');
    form = el('form', { class: 'inline-form', 'aria-labelledby': 'new-key-h' },
      el('h2', { id: 'new-key-h' }, 'New API key'),
      field('Name (who or what uses it)', name, 'The key is shown once; the server keeps only its SHA-256.'),
      submit,
      summary);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      await busy(submit, async () => {
        try {
          const k = (await api.post('/api/settings/keys', { name: name.value.trim() })).data;
          await showOnce({
            title: `The key “${k.name}”`,
            label: 'API key (shown once)',
            secret: k.key,
            lines: ['Copy it now and give it to the client that calls the API: it is not shown again. Send it as Authorization: Bearer <key>.'],
          });
          say(`The key “${k.name}” was created.`, 'ok');
          await reload();
        } catch (e) {
          if (e.details.length) showProblems(form, summary, e.details, { '/name': name });
          else say(`Could not create the key: ${errorText(e)}`, 'error');
        }
      });
    });
  }
  fill(root,
    heading('API keys', 'Keys let your systems call the API (/api/v1). Each request with a key acts for this account.'),
    table('API keys', ['Name', 'Begins with', 'Created', 'Last used', 'State', ''], rows, 'No API key yet.'),
    form || el('p', { class: 'hint' }, 'Only admins make and revoke keys.'));
}
