// Users (admins: GET|POST /api/settings/users, PUT /api/settings/users/{id}):
// add a person (a password made and shown once when none is given), change a
// role, disable or enable, set a password.
import { api, enc, session } from '../api.js';
import { busy, confirmAction, el, errorText, field, fill, heading, say, showOnce, showProblems, table, time } from '../ui.js';

export async function render(root, ctx) {
  if (session.me.user.role !== 'admin') {
    fill(root, heading('Users'), el('p', { class: 'notice notice-info' }, 'Only admins see and change the account\'s users.'));
    return;
  }
  const r = await api.get('/api/settings/users');
  if (!ctx.isCurrent()) return;
  const reload = () => render(root, ctx);
  const change = async (button, u, body, what) => busy(button, async () => {
    try {
      await api.put(`/api/settings/users/${enc(u.id)}`, body);
      say(what, 'ok');
      await reload();
    } catch (e) {
      say(`Could not change ${u.email}: ${errorText(e)}`, 'error');
    }
  });
  const rows = r.data.map((u) => {
    const me = u.id === session.me.user.id;
    const role = el('button', { type: 'button', class: 'button small' }, u.role === 'admin' ? 'Make member…' : 'Make admin…');
    role.addEventListener('click', async () => {
      const to = u.role === 'admin' ? 'member' : 'admin';
      if (await confirmAction({ title: `Make ${u.email} ${to === 'admin' ? 'an admin' : 'a member'}?`, lines: [to === 'admin' ? 'Admins change settings: keys, partners, webhooks, users.' : 'Members read settings and act on documents; they change no setting.'], action: `Make ${to}` })) {
        await change(role, u, { role: to }, `${u.email} is now ${to === 'admin' ? 'an admin' : 'a member'}.`);
      }
    });
    const toggle = el('button', { type: 'button', class: `button small ${u.disabled ? '' : 'danger'}` }, u.disabled ? 'Enable' : 'Disable…');
    toggle.addEventListener('click', async () => {
      if (!u.disabled && !(await confirmAction({ title: `Disable ${u.email}?`, lines: ['They are signed out at once and cannot sign in until enabled again.'], action: 'Disable', danger: true }))) return;
      await change(toggle, u, { disabled: !u.disabled }, `${u.email} is ${u.disabled ? 'enabled' : 'disabled'}.`);
    });
    return el('tr', {},
      el('th', { scope: 'row' }, u.email, me ? el('span', { class: 'hint' }, ' (you)') : null),
      el('td', {}, u.role),
      el('td', {}, u.disabled ? el('span', { class: 'badge badge-canceled' }, 'Disabled') : el('span', { class: 'badge badge-acknowledged' }, 'Active')),
      el('td', {}, u.lastSignInAt ? time(u.lastSignInAt, true) : el('span', { class: 'muted' }, 'never')),
      el('td', {}, time(u.createdAt, true)),
      el('td', { class: 'buttons' }, me ? el('span', { class: 'hint' }, 'Another admin changes your role or disables you.') : [role, ' ', toggle]));
  });
  const email = el('input', { id: 'u-email', type: 'email', required: true, autocomplete: 'off', spellcheck: 'false' });
  const roleSel = el('select', { id: 'u-role' }, el('option', { value: 'member' }, 'member'), el('option', { value: 'admin' }, 'admin'));
  const password = el('input', { id: 'u-password', type: 'password', autocomplete: 'new-password', minlength: '12' });
  const summary = el('div', { id: 'user-problems', tabindex: '-1' });
  const add = el('button', { type: 'submit', class: 'button primary' }, 'Add the user');
  const form = el('form', { class: 'inline-form', novalidate: true, 'aria-labelledby': 'new-user-h' },
    el('h2', { id: 'new-user-h' }, 'New user'),
    summary,
    el('div', { class: 'row' }, field('E-mail address', email), field('Role', roleSel),
      field('Password', password, 'At least 12 characters; leave it empty and one is made and shown once.')),
    add);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = { email: email.value.trim(), role: roleSel.value };
    if (password.value) body.password = password.value;
    await busy(add, async () => {
      try {
        const u = (await api.post('/api/settings/users', body)).data;
        if (u.password) {
          await showOnce({ title: `${u.email} can sign in`, label: 'Their password (shown once)', secret: u.password, lines: ['Give it to them over a safe channel; they can change it later.'] });
        }
        say(`Added ${u.email}.`, 'ok');
        await reload();
      } catch (e) {
        if (e.details.length) showProblems(form, summary, e.details, { '/email': email, '/role': roleSel, '/password': password });
        else {
          fill(summary, el('p', { class: 'notice notice-error', role: 'alert' }, `Nobody was added: ${errorText(e)}`));
          summary.focus();
        }
      }
    });
  });
  fill(root,
    heading('Users', 'The people who sign in to this account. Admins change settings; members read them and act on documents.'),
    table('Users', ['E-mail', 'Role', 'State', 'Last sign-in', 'Added', ''], rows),
    form);
}
