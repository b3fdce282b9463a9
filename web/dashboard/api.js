// The dashboard's collection endpoints. The CSRF token comes from the session call and goes
// with every state-changing request; the session itself is an HttpOnly cookie.
let csrfToken = null;

export class ApiError extends Error {
  constructor(status, error, retryAfter) {
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code;
    this.retryAfter = retryAfter;
  }
}

export async function call(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  const response = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (response.status === 204) return null;
  const payload = await response.json().catch(() => null);
  if (!response.ok)
    throw new ApiError(response.status, payload?.error, response.headers.get('Retry-After'));
  return payload;
}

/** The signed-in session (who, roles, what the page may show), or null when signed out. */
export async function restoreSession() {
  try {
    const session = await call('GET', '/session');
    csrfToken = session.csrf_token;
    return session;
  } catch (error) {
    if (error.status === 401) return null;
    throw error;
  }
}

/** Which ways in the sign-in page offers: the admin key, SSO, or both. */
export function signInOptions() {
  return call('GET', '/session/options');
}

export async function signIn(adminKey) {
  csrfToken = (await call('POST', '/session', { admin_key: adminKey })).csrf_token;
}

/** Ends the session; returns the provider's logout page after an SSO sign-in, if it has one. */
export async function signOut() {
  const answer = await call('DELETE', '/session');
  csrfToken = null;
  return answer?.logout_url ?? null;
}
