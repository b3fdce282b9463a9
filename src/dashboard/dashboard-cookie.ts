import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'gateway_dashboard';
const COOKIE_PATH = '/dashboard';
/** The SSO sign-in's transaction id, between the redirect to the provider and its way back. */
export const SIGN_IN_COOKIE = 'gateway_dashboard_signin';
const SIGN_IN_PATH = '/dashboard/auth';

/** A cookie's value, from a Cookie header parsed by hand (two cookies, no dependency). */
export function readCookie(request: Request, cookie: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === cookie) return value.join('=') || undefined;
  }
  return undefined;
}

export function sessionCookie(request: Request): string | undefined {
  return readCookie(request, SESSION_COOKIE);
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

export function isHttps(request: Request, publicBaseUrl: string | null): boolean {
  const forwarded = String(request.headers['x-forwarded-proto'] ?? '')
    .split(',')[0]
    .trim();
  return request.secure || forwarded === 'https' || Boolean(publicBaseUrl?.startsWith('https://'));
}
