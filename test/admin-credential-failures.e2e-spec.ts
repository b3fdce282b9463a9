import request from 'supertest';
import { ADMIN_KEY, adminApi } from './support/admin';
import { dashboardSignIn } from './support/dashboard';
import { expectEnvelope } from './support/envelope';
import { TestOidcProvider } from './support/oidc-provider';
import { testRedisNamespace, TEST_REDIS_URL } from './support/redis';
import { startTestApp, TestApp } from './support/test-app';

// Failed-credential limits (docs/admin-api.md, "Failed credentials"): only wrong credentials
// count, per client address; beyond the limit a wrong one gets 429 + Retry-After, and the right
// admin key, bearer token, session or sign-in is never refused, from any address.

jest.setTimeout(60_000);

const GUESSES = 1_000;

/** `count` calls, 25 at a time; their statuses in order. */
async function statusesOf(count: number, call: (index: number) => request.Test) {
  const statuses: number[] = [];
  for (let start = 0; start < count; start += 25) {
    const batch = Array.from({ length: Math.min(25, count - start) }, (_, i) => call(start + i));
    statuses.push(...(await Promise.all(batch)).map((answer) => answer.status));
  }
  return statuses;
}

const countOf = (statuses: number[], status: number) =>
  statuses.filter((value) => value === status).length;

describe('failed admin credentials: 1,000 guesses from one address', () => {
  let provider: TestOidcProvider;
  let gateway: TestApp;

  beforeAll(async () => {
    provider = await TestOidcProvider.start({
      alice: { email: 'alice@example.com', name: 'Alice', groups: ['gateway-admins'] },
    });
    gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        OIDC_ISSUER_URL: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_ROLES: JSON.stringify({ 'gateway-admins': 'admin' }),
        DASHBOARD_RATE_LIMIT: '1000',
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await provider?.close();
  });

  it('admin API: the guesser gets 401 ten times, then 429 + Retry-After; the right key and a right bearer token still answer 200', async () => {
    const session = await dashboardSignIn(gateway.url);
    const wrong = (index: number) =>
      request(gateway.url)
        .get('/admin/keys')
        .set(
          'Authorization',
          // Wrong admin keys, and tokens shaped as JWTs that no provider signed.
          index % 2 === 0 ? `Bearer wrong-admin-key-${index}` : `Bearer eyJh.eyJ${index}.c2ln`,
        );
    const statuses = await statusesOf(GUESSES, wrong);
    expect(countOf(statuses, 401)).toBe(10);
    expect(countOf(statuses, 429)).toBe(GUESSES - 10);

    const refused = await wrong(GUESSES);
    expectEnvelope(refused.body, 'rate_limit_exceeded', {
      type: 'requests',
      message: expect.stringContaining('A correct credential is accepted meanwhile'),
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(800); // ADMIN_AUTH_FAILURE_WINDOW_MS: 15 min
    expect(retryAfter).toBeLessThanOrEqual(900);

    expect((await adminApi(gateway.url).get('/keys')).status).toBe(200);
    expect(
      (await adminApi(gateway.url).post('/keys', { name: `after-${Date.now()}` })).status,
    ).toBe(201);
    const { idToken } = await provider.tokensFor('alice');
    const bearer = await request(gateway.url)
      .get('/admin/keys')
      .set('Authorization', `Bearer ${idToken}`);
    expect(bearer.status).toBe(200);
    // A session made before the guessing keeps working.
    const keys = await request(gateway.url)
      .get('/dashboard/api/keys')
      .set('Cookie', session.cookie);
    expect(keys.status).toBe(200);
  });

  it('dashboard: 1,000 wrong sign-ins, then the right key signs in', async () => {
    const statuses = await statusesOf(GUESSES, (index) =>
      request(gateway.url)
        .post('/dashboard/api/session')
        .send({ admin_key: `wrong-${index}` }),
    );
    expect(countOf(statuses, 401)).toBe(5);
    expect(countOf(statuses, 429)).toBe(GUESSES - 5);
    const refused = await request(gateway.url)
      .post('/dashboard/api/session')
      .send({ admin_key: 'wrong-again' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);

    const session = await dashboardSignIn(gateway.url);
    const current = await request(gateway.url)
      .get('/dashboard/api/session')
      .set('Cookie', session.cookie);
    expect(current.status).toBe(200);
  });

  it('does not count a request without a credential: it guesses nothing', async () => {
    const other = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, ADMIN_AUTH_FAILURE_LIMIT: '2' },
    });
    try {
      const bare = await statusesOf(20, () => request(other.url).get('/admin/keys'));
      expect(bare).toEqual(Array(20).fill(401));
      const wrong = await statusesOf(3, () =>
        request(other.url).get('/admin/keys').set('Authorization', 'Bearer wrong-admin-key'),
      );
      expect(wrong).toEqual([401, 401, 429]);
    } finally {
      await other.close();
    }
  });
});

describe('failed admin credentials: client addresses', () => {
  const guess = (gateway: TestApp, forwardedFor: string) =>
    request(gateway.url)
      .get('/admin/keys')
      .set('Authorization', 'Bearer wrong-admin-key')
      .set('X-Forwarded-For', forwardedFor);

  it('TRUST_PROXY set: two X-Forwarded-For addresses count apart, and the audit log names the client', async () => {
    const gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, ADMIN_AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: 'loopback' },
    });
    try {
      const first = await statusesOf(4, () => guess(gateway, '203.0.113.7'));
      expect(first).toEqual([401, 401, 401, 429]);
      expect((await guess(gateway, '198.51.100.9')).status).toBe(401);
      // The address the proxy reports, not the proxy's own.
      const admin = adminApi(gateway.url);
      const name = `trusted-${Date.now()}`;
      expect(
        (await admin.post('/keys', { name }).set('X-Forwarded-For', '192.0.2.44')).status,
      ).toBe(201);
      const audit = await admin.get(`/audit?target=${name}`);
      expect(audit.body.data[0].source_ip).toBe('192.0.2.44');
    } finally {
      await gateway.close();
    }
  });

  it('TRUST_PROXY unset: X-Forwarded-For is ignored, one bucket for the socket address', async () => {
    const gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, ADMIN_AUTH_FAILURE_LIMIT: '3' },
    });
    try {
      const first = await statusesOf(4, () => guess(gateway, '203.0.113.7'));
      expect(first).toEqual([401, 401, 401, 429]);
      expect((await guess(gateway, '198.51.100.9')).status).toBe(429);
      expect((await adminApi(gateway.url).get('/keys')).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

describe('failed admin credentials with shared storage', () => {
  const namespace = testRedisNamespace();
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    const env = {
      ADMIN_API_KEY: ADMIN_KEY,
      ADMIN_AUTH_FAILURE_LIMIT: '4',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: namespace.prefix,
    };
    first = await startTestApp({ env });
    second = await startTestApp({ env });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await namespace.cleanup();
  });

  it('counts one client across instances on one Redis, and refuses the right key on neither', async () => {
    const statuses = [];
    for (const gateway of [first, second, first, second, first, second])
      statuses.push(
        (await request(gateway.url).get('/admin/keys').set('Authorization', 'Bearer wrong-key'))
          .status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    expect((await adminApi(first.url).get('/keys')).status).toBe(200);
    expect((await adminApi(second.url).get('/keys')).status).toBe(200);
  });
});
