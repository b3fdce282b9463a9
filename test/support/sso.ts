import request from 'supertest';
import type { TestOidcProvider } from './oidc-provider';

export interface SsoSignIn {
  /** Where the callback sent the browser: /dashboard, or /dashboard?sign_in_error=... */
  location: string;
  /** `gateway_dashboard=...` when a session was made. */
  cookie: string | null;
  setCookies: string[];
  /** The callback answer's Cache-Control. */
  cacheControl: string | undefined;
  /** The callback as the provider sent the browser to it, and the transaction cookie it carried. */
  callback: string;
  signInCookie: string;
}

const cookieOf = (setCookies: string[], name: string) =>
  setCookies.find((line) => line.startsWith(`${name}=`) && !line.startsWith(`${name}=;`));

/**
 * "Sign in with SSO" without a browser: the gateway's login redirect, the provider's own login and
 * consent forms, and the callback with the transaction cookie, as a browser would send them.
 */
export async function ssoSignIn(
  gatewayUrl: string,
  provider: TestOidcProvider,
  sub: string,
): Promise<SsoSignIn> {
  const login = await request(gatewayUrl).get('/dashboard/auth/login').redirects(0);
  if (login.status !== 303) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const signInCookie = cookieOf(
    ([] as string[]).concat(login.headers['set-cookie'] ?? []),
    'gateway_dashboard_signin',
  )!.split(';')[0];
  const back = await provider.throughLogin(login.headers.location, sub);
  const callback = `${back.pathname}${back.search}`;
  return { ...(await deliverCallback(gatewayUrl, callback, signInCookie)), callback, signInCookie };
}

/** Sends (or replays) a callback with a transaction cookie. */
export async function deliverCallback(
  gatewayUrl: string,
  callback: string,
  signInCookie: string,
): Promise<Pick<SsoSignIn, 'location' | 'cookie' | 'setCookies' | 'cacheControl'>> {
  const answer = await request(gatewayUrl).get(callback).set('Cookie', signInCookie).redirects(0);
  if (answer.status !== 303) throw new Error(`callback: ${answer.status} ${answer.text}`);
  const setCookies = ([] as string[]).concat(answer.headers['set-cookie'] ?? []);
  return {
    location: answer.headers.location,
    cookie: cookieOf(setCookies, 'gateway_dashboard')?.split(';')[0] ?? null,
    setCookies,
    cacheControl: answer.headers['cache-control'],
  };
}

/** A session's CSRF token, for state-changing calls. */
export async function csrfOf(gatewayUrl: string, cookie: string): Promise<string> {
  const session = await request(gatewayUrl).get('/dashboard/api/session').set('Cookie', cookie);
  if (session.status !== 200) throw new Error(`session: ${session.status}`);
  return session.body.csrf_token;
}

/** A gateway's environment for this provider: SSO, these group-to-role mappings, loose limits. */
export function oidcEnv(provider: TestOidcProvider, roles: Record<string, string>) {
  return {
    OIDC_ISSUER_URL: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
    OIDC_SCOPES: 'openid email profile groups',
    OIDC_ROLES: JSON.stringify(roles),
    DASHBOARD_RATE_LIMIT: '1000',
    ADMIN_RATE_LIMIT: '1000',
  };
}
