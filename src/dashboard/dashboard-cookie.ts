import type { Request, Response } from 'express';
import { isIP } from 'node:net';

export const SESSION_COOKIE = 'gateway_dashboard';
const COOKIE_PATH = '/dashboard';
/** The page's first call, which tells it whether it is signed in. */
const SESSION_API_PATH = '/dashboard/api/session';
/** The SSO sign-in's transaction id, between the redirect to the provider and its way back. */
export const SIGN_IN_COOKIE = 'gateway_dashboard_signin';
const SIGN_IN_PATH = '/dashboard/auth';

/** Every value a cookie name has in the Cookie header, parsed by hand (two cookies, no dependency). */
export function cookieValues(request: Request, cookie: string): string[] {
  const values: string[] = [];
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === cookie) values.push(value.join('='));
  }
  return values;
}

/** A cookie's value; the first when the name comes more than once. */
export function readCookie(request: Request, cookie: string): string | undefined {
  return cookieValues(request, cookie)[0] || undefined;
}

/**
 * The session cookie: none, one value, or `duplicated` when the browser sent the name more than
 * once. A browser holds two when another host of the same site (Domain=) or another path set one
 * beside ours: which is ours cannot be told, so neither is trusted (docs/dashboard.md, "Security").
 */
export function sessionCookie(
  request: Request,
): { value?: string; duplicated?: undefined } | { duplicated: string[] } {
  const values = cookieValues(request, SESSION_COOKIE);
  return values.length > 1 ? { duplicated: values } : { value: values[0] || undefined };
}

/**
 * SameSite=Lax, unlike the session's Strict: the provider sends the browser back with a
 * cross-site top-level GET, which carries Lax cookies and not Strict ones. HttpOnly, scoped to
 * /dashboard/auth, and short-lived: it holds only a random id of a server-side transaction.
 */
export function setSignInCookie(
  request: Request,
  response: Response,
  id: string,
  maxAgeMs: number,
  publicBaseUrl: string | null,
): void {
  response.cookie(SIGN_IN_COOKIE, id, {
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttps(request, publicBaseUrl),
    path: SIGN_IN_PATH,
    maxAge: maxAgeMs,
  });
}

export function clearSignInCookie(
  request: Request,
  response: Response,
  publicBaseUrl: string | null,
): void {
  response.clearCookie(SIGN_IN_COOKIE, {
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttps(request, publicBaseUrl),
    path: SIGN_IN_PATH,
  });
}

/**
 * HttpOnly (no script reads it), SameSite=Strict (no cross-site request carries it), Secure when
 * the page was reached over HTTPS (directly, through a proxy that says so, or per PUBLIC_BASE_URL).
 * A browser-session cookie without Max-Age: the idle expiry is the server's, which restarts with
 * every request, so a fixed cookie lifetime would cut off an admin who is still working.
 */
export function setSessionCookie(
  request: Request,
  response: Response,
  secret: string,
  publicBaseUrl: string | null,
): void {
  // A cookie of the same name that another host of the site or another path set (and that this
  // request may not even carry, as the SSO callback's path is not the API's) would stand beside
  // the new one: it is expired first, wherever this answer can reach it.
  clearStraySessionCookies(request, response, publicBaseUrl, { keepOurs: true });
  response.cookie(SESSION_COOKIE, secret, {
    httpOnly: true,
    sameSite: 'strict',
    secure: isHttps(request, publicBaseUrl),
    path: COOKIE_PATH,
  });
}

export function clearSessionCookie(
  request: Request,
  response: Response,
  publicBaseUrl: string | null,
): void {
  response.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    sameSite: 'strict',
    secure: isHttps(request, publicBaseUrl),
    path: COOKIE_PATH,
  });
}

/**
 * Expires the session cookie wherever a browser could hold one that it sends with this request or
 * with the page's first call (GET /dashboard/api/session): on each prefix of those paths, host-only
 * and with Domain= set to the host and to each of its parent domains (a browser ignores a public
 * suffix such as co.uk). `keepOurs` leaves out ours (host-only, Path=/dashboard), which a new
 * session cookie then replaces.
 */
export function clearStraySessionCookies(
  request: Request,
  response: Response,
  publicBaseUrl: string | null,
  { keepOurs = false }: { keepOurs?: boolean } = {},
): void {
  const secure = isHttps(request, publicBaseUrl);
  const paths = new Set([...pathPrefixes(SESSION_API_PATH), ...pathPrefixes(request.path)]);
  for (const domain of [undefined, ...cookieDomains(request.hostname)])
    for (const path of paths) {
      if (keepOurs && domain === undefined && path === COOKIE_PATH) continue;
      response.clearCookie(SESSION_COOKIE, {
        httpOnly: true,
        sameSite: 'strict',
        secure,
        path,
        domain,
      });
    }
}

/** What the cookie library takes as a Path (no `;` or `<`, no controls): others are left out. */
const COOKIE_PATH_TEXT = /^[\x20-\x3a\x3d-\x7e]*$/;
/** Our routes are at most 5 segments deep (/dashboard/api/keys/:id/rotate). */
const MAX_SEGMENTS = 6;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/** `/a/b` → `/`, `/a`, `/a/`, `/a/b`: the cookie paths that match a request for it (RFC 6265 5.1.4). */
function pathPrefixes(path: string): string[] {
  const prefixes = ['/'];
  const segments = path.split('/').filter(Boolean).slice(0, MAX_SEGMENTS);
  for (let i = 1; i <= segments.length; i++) {
    const prefix = `/${segments.slice(0, i).join('/')}`;
    prefixes.push(prefix);
    if (i < segments.length || path.endsWith('/')) prefixes.push(`${prefix}/`);
  }
  return prefixes.filter((prefix) => COOKIE_PATH_TEXT.test(prefix));
}

/** `dash.example.com` → itself and `example.com`; none for an IP address or a one-label host. */
function cookieDomains(hostname: string): string[] {
  const labels = (hostname ?? '').split('.');
  if (isIP(hostname ?? '') || labels.length < 2 || !labels.every((label) => LABEL.test(label)))
    return [];
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

export function isHttps(request: Request, publicBaseUrl: string | null): boolean {
  const forwarded = String(request.headers['x-forwarded-proto'] ?? '')
    .split(',')[0]
    .trim();
  return request.secure || forwarded === 'https' || Boolean(publicBaseUrl?.startsWith('https://'));
}
