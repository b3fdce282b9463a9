import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'gateway_dashboard';
const COOKIE_PATH = '/dashboard';

/** The session cookie's value, from a Cookie header parsed by hand (one cookie, no dependency). */
export function sessionCookie(request: Request): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=') || undefined;
  }
  return undefined;
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
