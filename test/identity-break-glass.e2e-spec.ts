import request from 'supertest';
import { ADMIN_KEY } from './support/admin';
import { buildDashboard, dashboardSignIn } from './support/dashboard';
import { TestOidcProvider } from './support/oidc-provider';
import { closedPort } from './support/ports';
import { oidcEnv, ssoSignIn } from './support/sso';
import { startTestApp } from './support/test-app';

// Sign-ins through the provider and gateway starts take seconds on a busy machine.
jest.setTimeout(30_000);

const USERS = {
  alice: { email: 'alice@example.com', name: 'Alice Admin', groups: ['gateway-admins'] },
};
const ROLES = { 'gateway-admins': 'admin' };

beforeAll(() => buildDashboard());

describe('SSO: the dashboard without the admin key, and the admin key as break-glass', () => {
  let provider: TestOidcProvider;
  beforeAll(async () => (provider = await TestOidcProvider.start(USERS)));
  afterAll(() => provider?.close());

  it('exists with OIDC alone: the page, SSO sign-in, no admin-key form', async () => {
    const gateway = await startTestApp({ env: oidcEnv(provider, ROLES) });
    try {
      provider.allowGateway(gateway.url);
      expect((await request(gateway.url).get('/dashboard')).status).toBe(200);
      const options = await request(gateway.url).get('/dashboard/api/session/options');
      expect(options.body).toMatchObject({ admin_key: false, sso: true });
      const typed = await request(gateway.url)
        .post('/dashboard/api/session')
        .send({ admin_key: 'whatever-long-enough' });
      expect(typed.status).toBe(404);
      const signIn = await ssoSignIn(gateway.url, provider, 'alice');
      expect(signIn.location).toBe('/dashboard');
      // The admin API takes the provider's tokens though no admin key exists.
      const { idToken } = await provider.tokensFor('alice');
      const keys = await request(gateway.url)
        .get('/admin/keys')
        .set('Authorization', `Bearer ${idToken}`);
      expect(keys.status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('turns admin-key sign-in off with DASHBOARD_ADMIN_KEY_SIGNIN=off; the admin API keeps the key', async () => {
    const gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        DASHBOARD_ADMIN_KEY_SIGNIN: 'off',
        ...oidcEnv(provider, ROLES),
      },
    });
    try {
      const options = await request(gateway.url).get('/dashboard/api/session/options');
      expect(options.body).toMatchObject({ admin_key: false, sso: true });
      const typed = await request(gateway.url)
        .post('/dashboard/api/session')
        .send({ admin_key: ADMIN_KEY });
      expect(typed.status).toBe(404);
      expect(typed.body.error.message).toMatch(/DASHBOARD_ADMIN_KEY_SIGNIN=off/);
      const admin = await request(gateway.url)
        .get('/admin/keys')
        .set('Authorization', `Bearer ${ADMIN_KEY}`);
      expect(admin.status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('keeps the admin key working while the provider is down; SSO says it is unavailable', async () => {
    const gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        ...oidcEnv(provider, ROLES),
        OIDC_ISSUER_URL: `http://127.0.0.1:${await closedPort()}`,
      },
    });
    try {
      const login = await request(gateway.url).get('/dashboard/auth/login').redirects(0);
      expect(login.status).toBe(303);
      expect(login.headers.location).toBe('/dashboard?sign_in_error=unavailable');
      const session = await dashboardSignIn(gateway.url);
      const overview = await request(gateway.url)
        .get('/dashboard/api/overview')
        .set('Cookie', session.cookie);
      expect(overview.status).toBe(200);
      const admin = await request(gateway.url)
        .get('/admin/keys')
        .set('Authorization', `Bearer ${ADMIN_KEY}`);
      expect(admin.status).toBe(200);
      const { idToken } = await provider.tokensFor('alice');
      const bearer = await request(gateway.url)
        .get('/admin/keys')
        .set('Authorization', `Bearer ${idToken}`);
      expect(bearer.status).toBe(503);
      expect(bearer.body.error.message).toMatch(/identity provider cannot be reached/);
    } finally {
      await gateway.close();
    }
  });
});
