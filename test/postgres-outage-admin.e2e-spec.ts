import request from 'supertest';
import { ADMIN_KEY, adminApi } from './support/admin';
import { dashboardSignIn, type DashboardSessionCookie } from './support/dashboard';
import { expectEnvelope } from './support/envelope';
import { waitUntil } from './support/eventually';
import { proxiedPostgres, type TcpProxy } from './support/tcp-proxy';
import { startTestApp, TestApp } from './support/test-app';

// The admin API and the dashboard's API while Postgres is away: 503 service_unavailable with
// Retry-After, as /v1 answers, never a 500 and never a hang. "Postgres" is a TCP proxy in front
// of the machine's Postgres that swallows every byte (a network that drops packets), then
// refuses connections (a stopped server), then forwards again.

jest.setTimeout(60_000);

describe('admin API and dashboard during a Postgres outage', () => {
  let proxy: TcpProxy;
  let gateway: TestApp;
  let session: DashboardSessionCookie;

  beforeAll(async () => {
    let databaseUrl: string;
    ({ proxy, databaseUrl } = await proxiedPostgres());
    gateway = await startTestApp({
      env: {
        DATABASE_URL: databaseUrl,
        ADMIN_API_KEY: ADMIN_KEY,
        DASHBOARD_RATE_LIMIT: '1000',
        DB_STATEMENT_TIMEOUT_MS: '1000',
        DB_CONNECT_TIMEOUT_MS: '500',
        DB_PING_TIMEOUT_MS: '500',
      },
    });
    session = await dashboardSignIn(gateway.url);
  });

  afterAll(async () => {
    proxy.restore();
    await gateway.close();
    await proxy.stop();
  }, 20_000);

  /** Every admin and dashboard API route that reads or writes Postgres, as one client would call it. */
  const calls = (): Array<[string, () => request.Test]> => {
    const admin = adminApi(gateway.url);
    const dashboard = (path: string) =>
      request(gateway.url).get(`/dashboard/api${path}`).set('Cookie', session.cookie);
    return [
      ['GET /admin/keys', () => admin.get('/keys')],
      ['POST /admin/keys', () => admin.post('/keys', { name: `outage-${Date.now()}` })],
      ['GET /admin/keys/:id', () => admin.get('/keys/some-key')],
      ['GET /admin/teams', () => admin.get('/teams')],
      ['GET /admin/usage', () => admin.get('/usage')],
      ['GET /admin/spend', () => admin.get('/spend')],
      ['GET /admin/audit', () => admin.get('/audit')],
      ['GET /dashboard/api/keys', () => dashboard('/keys')],
      ['GET /dashboard/api/usage', () => dashboard('/usage')],
      ['GET /dashboard/api/audit', () => dashboard('/audit')],
      [
        'POST /dashboard/api/session',
        () => request(gateway.url).post('/dashboard/api/session').send({ admin_key: ADMIN_KEY }),
      ],
    ];
  };

  async function expectAllUnavailable(): Promise<number> {
    const started = Date.now();
    const answers = await Promise.all(
      calls().map(async ([route, call]) => ({ route, answer: await call().timeout(15_000) })),
    );
    for (const { route, answer } of answers) {
      expect({ route, status: answer.status }).toEqual({ route, status: 503 });
      expectEnvelope(answer.body, 'service_unavailable', { type: 'server_error' });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    return Date.now() - started;
  }

  it('answers 503 + Retry-After on a silent network and on refused connections, and 200 again after', async () => {
    for (const [route, call] of calls())
      expect({ route, status: (await call()).status }).not.toEqual({ route, status: 503 });

    proxy.hang();
    // Bounded by the statement and connect timeouts (1 s and 0.5 s here), not by TCP's minutes.
    expect(await expectAllUnavailable()).toBeLessThan(10_000);

    proxy.restore();
    await proxy.stop();
    await expectAllUnavailable();
    // What needs no database keeps answering.
    const overview = await request(gateway.url)
      .get('/dashboard/api/overview')
      .set('Cookie', session.cookie);
    expect(overview.status).toBe(200);

    await proxy.start();
    await waitUntil(
      async () => (await adminApi(gateway.url).get('/keys')).status === 200,
      15_000,
      100,
    );
    for (const [route, call] of calls())
      expect({ route, status: (await call()).status }).not.toEqual({ route, status: 503 });
  });
});
