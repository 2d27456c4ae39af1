// The dashboard's shell: the session, the navigation and the router. Pages live
// in pages/*.js; each renders into <main> from the documented routes (api.js).
// Routes are in the URL's fragment (#/documents?status=failed), so a page can
// be bookmarked, reloaded and shared, and the server serves only `/`.
import { loadSession, session, signOut, whenSignedOut } from './api.js';
import { el, fill, say } from './ui.js';
import * as signin from './pages/signin.js';
import * as overview from './pages/overview.js';
import * as documents from './pages/documents.js';
import * as doc from './pages/document.js';
import * as upload from './pages/upload.js';
import * as partners from './pages/partners.js';
import * as keys from './pages/keys.js';
import * as webhooks from './pages/webhooks.js';
import * as users from './pages/users.js';
import * as audit from './pages/audit.js';

const ROUTES = [
  [/^\/$/, overview, 'Overview'],
  [/^\/documents$/, documents, 'Documents'],
  [/^\/documents\/([^/]+)$/, doc, 'Document'],
  [/^\/upload$/, upload, 'CSV intake'],
  [/^\/partners$/, partners, 'Trading partners'],
  [/^\/partners\/new$/, partners, 'New trading partner', { mode: 'new' }],
  [/^\/partners\/([^/]+)$/, partners, 'Trading partner', { mode: 'edit' }],
  [/^\/keys$/, keys, 'API keys'],
  [/^\/webhooks$/, webhooks, 'Webhooks'],
  [/^\/webhooks\/([^/]+)$/, webhooks, 'Webhook endpoint', { mode: 'endpoint' }],
  [/^\/users$/, users, 'Users'],
  [/^\/audit$/, audit, 'Audit log'],
];

const main = document.getElementById('main');
let renderSeq = 0;
let expiredMessage = null;
let keepNotice = false; // set by go(): what an action said stays on the page it goes to

/** The current route: path and query of the fragment. */
function location() {
  const raw = window.location.hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  return { path: q < 0 ? raw : raw.slice(0, q), query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)), raw };
}

/** Goes to `hash` (`#/documents?...`). */
export function go(hash) {
  keepNotice = true;
  if (window.location.hash === hash) route();
  else window.location.hash = hash;
}

function signInFirst(message) {
  const { raw, path } = location();
  if (path === '/sign-in') return; // already there (several calls of a page can be refused at once)
  expiredMessage = message || null;
  say('');
  go(`#/sign-in?next=${encodeURIComponent(raw)}`);
}

whenSignedOut((e) => signInFirst(e.code === 'SESSION_EXPIRED'
  ? 'Your session has expired. Sign in again to go back to the page you were on.'
  : 'You are signed out. Sign in to go back to the page you were on.'));

function shell() {
  const me = session.me;
  const admin = me.user.role === 'admin';
  const link = (hash, text) => el('li', {}, el('a', { href: hash, 'data-route': hash }, text));
  fill(document.getElementById('account'),
    el('span', { class: 'who' },
      el('span', { class: 'account' }, me.account),
      ' · ',
      el('span', { class: 'user' }, me.user.email),
      ' ',
      el('span', { class: 'role' }, `(${me.user.role})`)),
    el('button', { type: 'button', class: 'button small', id: 'sign-out', onclick: async () => {
      await signOut().catch(() => {});
      expiredMessage = 'You are signed out.';
      say('');
      go('#/sign-in');
    } }, 'Sign out'));
  fill(document.getElementById('nav'),
    el('ul', {},
      link('#/', 'Overview'),
      link('#/documents', 'Documents'),
      link('#/upload', 'CSV intake')),
    el('p', { class: 'nav-group', id: 'nav-settings' }, 'Settings'),
    el('ul', { 'aria-labelledby': 'nav-settings' },
      link('#/partners', 'Trading partners'),
      link('#/keys', 'API keys'),
      link('#/webhooks', 'Webhooks'),
      admin ? link('#/users', 'Users') : null,
      link('#/audit', 'Audit log')));
  document.body.classList.add('signed-in');
}

function markNav(path) {
  for (const a of document.querySelectorAll('#nav a')) {
    const target = a.dataset.route.slice(1);
    const on = target === '/' ? path === '/' : path === target || path.startsWith(`${target}/`);
    if (on) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

async function route() {
  const seq = ++renderSeq;
  const { path, query } = location();
  // A dialog of the page left behind (the back button while it was open) goes with it.
  for (const d of document.querySelectorAll('dialog[open]')) d.close();
  if (!keepNotice) say('');
  keepNotice = false;
  if (path === '/sign-in') {
    document.body.classList.remove('signed-in');
    fill(document.getElementById('nav'));
    fill(document.getElementById('account'));
    document.title = 'Sign in — x12kit gateway';
    const message = expiredMessage;
    expiredMessage = null;
    await signin.render(main, { query, message, done: (next) => {
      shell();
      go(next && next.startsWith('/') && !next.startsWith('/sign-in') ? `#${next}` : '#/');
    } });
    return;
  }
  if (!session.me) {
    let me = null;
    try {
      me = await loadSession();
    } catch (e) {
      fill(main, el('p', { class: 'notice notice-error', role: 'alert' }, `The server cannot be reached: ${e.message}`));
      return;
    }
    if (seq !== renderSeq) return;
    if (!me) return signInFirst(null);
    shell();
  }
  const found = ROUTES.find(([re]) => re.test(path));
  if (!found) {
    fill(main, el('h1', { id: 'page-title', tabindex: '-1' }, 'Not found'), el('p', {}, 'There is no such page. ', el('a', { href: '#/' }, 'Go to the overview.')));
    return;
  }
  const [re, page, title, extra] = found;
  const params = path.match(re).slice(1).map(decodeURIComponent);
  markNav(path);
  document.title = `${title} — x12kit gateway`;
  fill(main, el('p', { class: 'muted', role: 'status' }, 'Loading…'));
  try {
    await page.render(main, { params, query, go, isCurrent: () => seq === renderSeq, ...(extra || {}) });
  } catch (e) {
    if (seq !== renderSeq || e.status === 401) return;
    fill(main, el('h1', { id: 'page-title', tabindex: '-1' }, title),
      el('p', { class: 'notice notice-error', role: 'alert' }, `This page could not be shown: ${e.message}${e.code ? ` (${e.code})` : ''}`));
  }
  if (seq === renderSeq) {
    const h = document.getElementById('page-title');
    if (h && !main.contains(document.activeElement) && !document.querySelector('dialog[open]')) h.focus({ preventScroll: true });
  }
}

window.addEventListener('hashchange', route);
// The skip link moves focus, not the route (the fragment holds the route).
document.querySelector('.skip').addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
});
route();
