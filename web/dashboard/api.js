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

export async function restoreSession() {
  try {
    csrfToken = (await call('GET', '/session')).csrf_token;
    return true;
  } catch (error) {
    if (error.status === 401) return false;
    throw error;
  }
}

export async function signIn(adminKey) {
  csrfToken = (await call('POST', '/session', { admin_key: adminKey })).csrf_token;
}

export async function signOut() {
  await call('DELETE', '/session');
  csrfToken = null;
}
