// Sign-in (POST /api/auth/login): the wrong-password answer, the lockout with
// the time it ends, and back to the page the person was on (`next`).
import { signIn } from '../api.js';
import { el, fill, field } from '../ui.js';

const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

export async function render(root, { query, message, done }) {
  const email = el('input', { id: 'email', type: 'email', autocomplete: 'username', required: true, spellcheck: 'false' });
  const password = el('input', { id: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const submit = el('button', { type: 'submit', class: 'button primary' }, 'Sign in');
  const status = el('div', { id: 'sign-in-status', 'aria-live': 'assertive' });
  if (message) fill(status, el('p', { class: 'notice notice-info' }, message));
  const form = el('form', { class: 'sign-in', novalidate: true },
    field('E-mail address', email),
    field('Password', password),
    submit,
    status);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!email.value.trim() || !password.value) {
      fill(status, el('p', { class: 'notice notice-error', role: 'alert' }, 'Enter your e-mail address and your password.'));
      (email.value.trim() ? password : email).focus();
      return;
    }
    submit.disabled = true;
    try {
      await signIn(email.value, password.value);
      done(query.get('next'));
    } catch (e) {
      password.value = '';
      let text;
      if (e.code === 'LOGIN_LOCKED') {
        const until = e.error.lockedUntil ? new Date(e.error.lockedUntil) : null;
        const minutes = until ? Math.max(1, Math.ceil((until - Date.now()) / 60000)) : null;
        text = until
          ? `Too many failed sign-ins for this address. It is locked until ${clock.format(until)} (about ${minutes} minute${minutes === 1 ? '' : 's'} from now), even with the right password.`
          : `Too many failed sign-ins for this address: ${e.message}`;
      } else if (e.code === 'INVALID_CREDENTIALS') {
        text = 'The e-mail address or the password is wrong.';
      } else if (e.code === 'RATE_LIMITED') {
        text = `Too many sign-ins from this computer: wait ${e.retryAfter || 'a few'} seconds and try again.`;
      } else {
        text = `Could not sign in: ${e.message}`;
      }
      fill(status, el('p', { class: 'notice notice-error', role: 'alert', id: 'sign-in-error' }, text));
      password.focus();
    } finally {
      submit.disabled = false;
    }
  });
  fill(root,
    el('div', { class: 'sign-in-box' },
      el('h1', { id: 'page-title', tabindex: '-1' }, 'Sign in'),
      el('p', { class: 'lede' }, 'The x12kit gateway: your documents, trading partners, API keys and webhooks.'),
      form,
      el('p', { class: 'hint' }, 'No account yet? An operator makes the first user with ', el('code', {}, 'x12kit-server user add'), '.')));
  email.focus();
}
