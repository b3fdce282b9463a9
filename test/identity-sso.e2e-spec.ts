import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Client } from 'pg';
import request from 'supertest';
import { ADMIN_KEY } from './support/admin';
import { queryTestDatabase } from './support/databases';
import { buildDashboard } from './support/dashboard';
import { TestOidcProvider } from './support/oidc-provider';
import { csrfOf, deliverCallback, oidcEnv, ssoSignIn } from './support/sso';
import { startTestApp, TestApp } from './support/test-app';

// Sign-ins through the provider and gateway starts take seconds on a busy machine.
jest.setTimeout(30_000);

const USERS = {
  alice: { email: 'alice@example.com', name: 'Alice Admin', groups: ['gateway-admins'] },
  mia: { email: 'mia@example.com', name: 'Mia Member', groups: ['staff'] },
  nora: { email: 'nora@example.com', name: 'Nora Nobody', groups: ['cafeteria'] },
};
const ROLES = { 'gateway-admins': 'admin', auditors: 'viewer', staff: 'member' };

const auditRows = (action: string, since: Date) =>
  queryTestDatabase('SELECT * FROM audit_log WHERE action = $1 AND created_at >= $2 ORDER BY id', [
    action,
    since,
  ]);

beforeAll(() => buildDashboard());

describe('SSO sign-in (authorization code + PKCE against a real OpenID provider)', () => {
  let provider: TestOidcProvider;
  let gateway: TestApp;

  beforeAll(async () => {
    provider = await TestOidcProvider.start(USERS);
    gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, ...oidcEnv(provider, ROLES) },
    });
    provider.allowGateway(gateway.url);
  });
  afterEach(() => (provider.tokenResponseHook = null));
  afterAll(async () => {
    await gateway?.close();
    await provider?.close();
  });

  it('asks the provider with PKCE (S256), state and nonce; the transaction waits in a short-lived Lax cookie', async () => {
    const login = await request(gateway.url).get('/dashboard/auth/login').redirects(0);
    expect(login.status).toBe(303);
    const url = new URL(login.headers.location);
    expect(`${url.origin}${url.pathname}`).toBe(`${provider.issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: 'gateway',
      response_type: 'code',
      redirect_uri: `${gateway.url}/dashboard/auth/callback`,
      scope: 'openid email profile groups',
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
    });
    const cookie = ([] as string[]).concat(login.headers['set-cookie'])[0];
    expect(cookie).toMatch(/^gateway_dashboard_signin=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/dashboard\/auth/);
    expect(cookie).toMatch(/Max-Age=600/);
    // Only a random id: neither the state, the nonce nor the PKCE verifier.
    const value = cookie.split(';')[0].split('=')[1];
    expect(value).not.toContain(url.searchParams.get('state'));
    expect(value).not.toContain(url.searchParams.get('nonce'));
  });

  it('signs in: a Strict session, the user created at first sign-in, roles from groups, an audit row', async () => {
    const since = new Date();
    const signIn = await ssoSignIn(gateway.url, provider, 'alice');
    expect(signIn.location).toBe('/dashboard');
    // The answer sets the session cookie: nothing may keep it.
    expect(signIn.cacheControl).toBe('no-store');
    const session = signIn.setCookies.find(
      (line) => line.startsWith('gateway_dashboard=') && !line.startsWith('gateway_dashboard=;'),
    )!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).not.toMatch(/Max-Age/);
    // The transaction cookie is cleared on the way back.
    expect(signIn.setCookies.some((line) => line.startsWith('gateway_dashboard_signin=;'))).toBe(
      true,
    );

    const current = await request(gateway.url)
      .get('/dashboard/api/session')
      .set('Cookie', signIn.cookie!);
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({
      method: 'sso',
      user: { email: 'alice@example.com', name: 'Alice Admin', id: expect.any(String) },
      roles: ['admin'],
      permissions: { overview: true, keys: true, create_keys: true, usage: true, audit: true },
    });
    const overview = await request(gateway.url)
      .get('/dashboard/api/overview')
      .set('Cookie', signIn.cookie!);
    expect(overview.status).toBe(200);

    const db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query(
        'SELECT * FROM admin_users WHERE subject = $1 AND issuer = $2',
        ['alice', provider.issuer],
      );
      expect(rows).toEqual([
        expect.objectContaining({
          id: current.body.user.id,
          issuer: provider.issuer,
          email: 'alice@example.com',
          name: 'Alice Admin',
          groups: ['gateway-admins'],
          roles: ['admin'],
          last_sign_in_at: expect.any(Date),
        }),
      ]);
    } finally {
      await db.end();
    }
    const [row] = await auditRows('auth.sign_in', since);
    expect(row).toMatchObject({
      actor_type: 'user',
      actor_id: current.body.user.id,
      actor_email: 'alice@example.com',
      target_type: 'dashboard',
      after: { method: 'sso', name: 'Alice Admin', roles: ['admin'] },
      source_ip: expect.stringMatching(/127\.0\.0\.1/),
      request_id: expect.stringMatching(/^req_/),
    });
  });

  it('refuses a replayed callback (state used once) and one from a browser without the transaction', async () => {
    const since = new Date();
    const first = await ssoSignIn(gateway.url, provider, 'alice');
    expect(first.location).toBe('/dashboard');
    const replay = await deliverCallback(gateway.url, first.callback, first.signInCookie);
    expect(replay).toMatchObject({ location: '/dashboard?sign_in_error=expired', cookie: null });

    const login = await request(gateway.url).get('/dashboard/auth/login').redirects(0);
    const back = await provider.throughLogin(login.headers.location, 'alice');
    const elsewhere = await deliverCallback(gateway.url, `${back.pathname}${back.search}`, 'x=1');
    expect(elsewhere).toMatchObject({ location: '/dashboard?sign_in_error=expired', cookie: null });

    const failed = await auditRows('auth.sign_in_failed', since);
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatchObject({ actor_type: 'anonymous', after: { method: 'sso' } });
  });

  it("refuses a callback whose state is another sign-in's", async () => {
    const cookieOf = (response: request.Response) =>
      ([] as string[]).concat(response.headers['set-cookie'])[0].split(';')[0];
    const a = await request(gateway.url).get('/dashboard/auth/login').redirects(0);
    const b = await request(gateway.url).get('/dashboard/auth/login').redirects(0);
    const back = await provider.throughLogin(a.headers.location, 'alice');
    const crossed = await deliverCallback(
      gateway.url,
      `${back.pathname}${back.search}`,
      cookieOf(b),
    );
    expect(crossed).toMatchObject({ location: '/dashboard?sign_in_error=refused', cookie: null });
  });

  it('refuses a replayed ID token: one from an earlier sign-in carries its own nonce', async () => {
    let earlier: string | undefined;
    provider.tokenResponseHook = (body) => void (earlier = body.id_token as string);
    expect((await ssoSignIn(gateway.url, provider, 'alice')).location).toBe('/dashboard');
    const since = new Date();
    provider.tokenResponseHook = (body) => void (body.id_token = earlier);
    const replayed = await ssoSignIn(gateway.url, provider, 'alice');
    expect(replayed).toMatchObject({ location: '/dashboard?sign_in_error=refused', cookie: null });
    const [row] = await auditRows('auth.sign_in_failed', since);
    expect(row.after.reason).toMatch(/nonce/);
  });

  it('refuses a tampered ID token (claims changed, signature kept)', async () => {
    provider.tokenResponseHook = (body) => {
      const [header, payload, signature] = (body.id_token as string).split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      claims.groups = ['gateway-admins'];
      const forged = Buffer.from(JSON.stringify(claims)).toString('base64url');
      body.id_token = `${header}.${forged}.${signature}`;
    };
    const since = new Date();
    const tampered = await ssoSignIn(gateway.url, provider, 'nora');
    expect(tampered).toMatchObject({ location: '/dashboard?sign_in_error=refused', cookie: null });
    const [row] = await auditRows('auth.sign_in_failed', since);
    expect(row.after.reason).toMatch(/signature/);
  });

  it('refuses an ID token signed by a key outside the provider’s JWKS', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const foreign = await exportJWK(privateKey);
    provider.tokenResponseHook = async (body) => {
      body.id_token = await new SignJWT(decodeJwt(body.id_token as string))
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' })
        .sign(foreign as never);
    };
    const forged = await ssoSignIn(gateway.url, provider, 'alice');
    expect(forged).toMatchObject({ location: '/dashboard?sign_in_error=refused', cookie: null });
  });

  it('refuses an expired ID token, even signed by the provider with the right nonce', async () => {
    provider.tokenResponseHook = async (body) => {
      const claims = decodeJwt(body.id_token as string);
      const now = Math.floor(Date.now() / 1000);
      body.id_token = await provider.sign({ ...claims, iat: now - 7200, exp: now - 3600 });
    };
    const since = new Date();
    const expired = await ssoSignIn(gateway.url, provider, 'alice');
    expect(expired).toMatchObject({ location: '/dashboard?sign_in_error=refused', cookie: null });
    const [row] = await auditRows('auth.sign_in_failed', since);
    expect(row.after.reason).toMatch(/exp|timestamp/i);
  });

  it('no mapped group: signed in to a "no access" session, and every API call is a 403', async () => {
    const signIn = await ssoSignIn(gateway.url, provider, 'nora');
    expect(signIn.location).toBe('/dashboard');
    const cookie = signIn.cookie!;
    const current = await request(gateway.url).get('/dashboard/api/session').set('Cookie', cookie);
    expect(current.body).toMatchObject({
      roles: [],
      permissions: { overview: false, keys: false, create_keys: false, usage: false, audit: false },
    });
    for (const path of ['/overview', '/keys', '/usage', '/audit']) {
      const answer = await request(gateway.url).get(`/dashboard/api${path}`).set('Cookie', cookie);
      expect(answer.status).toBe(403);
      expect(answer.body.error).toMatchObject({
        code: 'permission_denied',
        type: 'permission_error',
      });
      expect(answer.body.error.message).toMatch(/no access/);
    }
    const create = await request(gateway.url)
      .post('/dashboard/api/keys')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', current.body.csrf_token)
      .send({ name: 'nope' });
    expect(create.status).toBe(403);
    const tokens = await provider.tokensFor('nora');
    const admin = await request(gateway.url)
      .get('/admin/keys')
      .set('Authorization', `Bearer ${tokens.idToken}`);
    expect(admin.status).toBe(403);
    expect(admin.body.error.code).toBe('permission_denied');
  });

  it('re-reads the roles at every sign-in', async () => {
    provider.users.get('mia')!.groups = ['staff'];
    const before = await ssoSignIn(gateway.url, provider, 'mia');
    const roles = async (cookie: string) =>
      (await request(gateway.url).get('/dashboard/api/session').set('Cookie', cookie)).body.roles;
    expect(await roles(before.cookie!)).toEqual(['member']);
    provider.users.get('mia')!.groups = ['staff', 'auditors'];
    const after = await ssoSignIn(gateway.url, provider, 'mia');
    expect(await roles(after.cookie!)).toEqual(['member', 'viewer']);
    provider.users.get('mia')!.groups = ['staff'];
  });

  it('signs out: the session ends, and the provider is asked to end its own (RP-initiated logout)', async () => {
    const since = new Date();
    const signIn = await ssoSignIn(gateway.url, provider, 'alice');
    const csrf = await csrfOf(gateway.url, signIn.cookie!);
    const out = await request(gateway.url)
      .delete('/dashboard/api/session')
      .set('Cookie', signIn.cookie!)
      .set('X-CSRF-Token', csrf);
    expect(out.status).toBe(200);
    const logout = new URL(out.body.logout_url);
    expect(`${logout.origin}${logout.pathname}`).toBe(`${provider.issuer}/session/end`);
    expect(logout.searchParams.get('post_logout_redirect_uri')).toBe(`${gateway.url}/dashboard`);
    expect(decodeJwt(logout.searchParams.get('id_token_hint')!).sub).toBe('alice');
    // The provider takes the hint and confirms its own sign-out (the browser test follows it).
    const page = await fetch(logout);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/action="[^"]*\/session\/end\/confirm"/);

    const after = await request(gateway.url)
      .get('/dashboard/api/session')
      .set('Cookie', signIn.cookie!);
    expect(after.status).toBe(401);
    const [row] = await auditRows('auth.sign_out', since);
    expect(row).toMatchObject({ actor_type: 'user', actor_email: 'alice@example.com' });
  });
});
