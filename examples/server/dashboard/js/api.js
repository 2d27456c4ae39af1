// The dashboard's only way to the server: the documented JSON routes
// (/api/auth, /api/settings, /api/deliveries, /api/upload, /api/v1) with the
// session cookie, and the session's CSRF token on every change. Nothing here
// is possible only for the page: each call is one curl command with the cookie.

/** A refused call: the server's stable code, message, details and status. */
export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `the server answered HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = e.code || `HTTP_${status}`;
    this.details = Array.isArray(e.details) ? e.details : [];
    this.error = e;
  }
}

/** The signed-in person (`GET /api/auth/me`'s data), or null. */
export const session = { me: null };

/** Called with the refusal when the session is missing or has expired (the app goes to sign-in). */
let onSignedOut = () => {};
export function whenSignedOut(f) {
  onSignedOut = f;
}

async function send(method, path, { json, body, headers = {}, quiet401 = false } = {}) {
  const h = { Accept: 'application/json', ...headers };
  if (method !== 'GET' && method !== 'HEAD' && session.me) h['X-CSRF-Token'] = session.me.csrfToken;
  let payload = body;
  if (json !== undefined) {
    h['Content-Type'] = 'application/json';
    payload = JSON.stringify(json);
  }
  let res;
  try {
    res = await fetch(path, { method, headers: h, body: payload, credentials: 'same-origin', cache: 'no-store' });
  } catch (e) {
    throw new ApiError(0, { error: { code: 'NETWORK', message: `the server cannot be reached (${e.message})` } });
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = new ApiError(res.status, data);
    err.retryAfter = Number(res.headers.get('Retry-After')) || null;
    if (res.status === 401 && !quiet401) {
      session.me = null;
      onSignedOut(err);
    }
    throw err;
  }
  return data;
}

export const api = {
  get: (path, opts) => send('GET', path, opts),
  post: (path, json, opts = {}) => send('POST', path, { ...opts, json }),
  put: (path, json, opts = {}) => send('PUT', path, { ...opts, json }),
  del: (path, opts) => send('DELETE', path, opts),
  /** A POST whose body is not JSON (a CSV file). */
  upload: (path, body, contentType) => send('POST', path, { body, headers: { 'Content-Type': contentType } }),
};

/** `GET /api/auth/me`: the session, or null when there is none (no redirect). */
export async function loadSession() {
  try {
    const r = await send('GET', '/api/auth/me', { quiet401: true });
    session.me = r.data;
  } catch (e) {
    if (e.status !== 401) throw e;
    session.me = null;
  }
  return session.me;
}

export async function signIn(email, password) {
  const r = await send('POST', '/api/auth/login', { json: { email, password }, quiet401: true });
  session.me = r.data;
  return r.data;
}

export async function signOut() {
  try {
    await send('POST', '/api/auth/logout', { quiet401: true });
  } finally {
    session.me = null;
  }
}

/** A query string of the non-empty values of `params`. */
export function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, v);
  const s = u.toString();
  return s ? `?${s}` : '';
}

/** `encodeURIComponent` for ids in paths. */
export const enc = encodeURIComponent;
