import request from 'supertest';
import { ADMIN_KEY } from './support/admin';
import { dashboardSignIn } from './support/dashboard';
import { sleep } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';

const setCookies = (response: request.Response): string[] =>
  ([] as string[]).concat(response.headers['set-cookie'] ?? []);
/** The Set-Cookie lines that expire gateway_dashboard, as "path domain" ("-" when host-only). */
const cleared = (response: request.Response): string[] =>
  setCookies(response)
    .filter((line) => line.startsWith('gateway_dashboard=;'))
    .map((line) => `${/Path=([^;]*)/.exec(line)![1]} ${/Domain=([^;]*)/.exec(line)?.[1] ?? '-'}`);

describe('dashboard sessions: absolute lifetime', () => {
  it('ends a session in constant use DASHBOARD_SESSION_MAX_MS after sign-in', async () => {
    const gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        DASHBOARD_SESSION_IDLE_MS: '60000',
        DASHBOARD_SESSION_MAX_MS: '1500',
        DASHBOARD_RATE_LIMIT: '1000',
      },
    });
    try {
      const session = await dashboardSignIn(gateway.url);
      const signedInAt = Date.now(); // the session began before this
      const current = () =>
        request(gateway.url).get('/dashboard/api/session').set('Cookie', session.cookie);
      // Busy all along: a call every 200 ms, far inside the idle time.
      while (Date.now() - signedInAt < 1_000) {
        expect((await current()).status).toBe(200);
        await sleep(200);
      }
      while (Date.now() - signedInAt < 1_700) await sleep(100);
      const ended = await current();
      expect(ended.status).toBe(401);
      expect(ended.body.error.code).toBe('dashboard_session_required');
      // Signing in again starts a new lifetime.
      const again = await dashboardSignIn(gateway.url);
      expect(
        (await request(gateway.url).get('/dashboard/api/session').set('Cookie', again.cookie))
          .status,
      ).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

describe('dashboard sessions: a duplicated session cookie', () => {
  let gateway: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, DASHBOARD_RATE_LIMIT: '1000' },
    });
  });
  afterAll(() => gateway.close());

  it('is refused whichever comes first: 401, the session it names ended, both expired', async () => {
    for (const order of ['planted first', 'ours first']) {
      const session = await dashboardSignIn(gateway.url);
      const planted = 'gateway_dashboard=planted-by-a-neighbour';
      const cookies =
        order === 'ours first' ? [session.cookie, planted] : [planted, session.cookie];
      const refused = await request(gateway.url)
        .get('/dashboard/api/keys')
        .set('Host', 'dash.gateway.example')
        .set('Cookie', cookies.join('; '));
      expect([order, refused.status]).toEqual([order, 401]);
      expect(refused.body.error).toMatchObject({
        code: 'dashboard_session_required',
        message: expect.stringContaining('sent 2 dashboard session cookies'),
      });
      expect(refused.headers['cache-control']).toBe('no-store');
      // Expired on every path that reaches this call or the page's first one, host-only and for
      // the host and its parent domain.
      const expired = cleared(refused);
      for (const path of ['/', '/dashboard', '/dashboard/api', '/dashboard/api/keys'])
        for (const domain of ['-', 'dash.gateway.example', 'gateway.example'])
          expect(expired).toContain(`${path} ${domain}`);
      expect(expired).toContain('/dashboard/api/session -');
      expect(expired.some((line) => line.endsWith(' example'))).toBe(false);
      // The session the cookie named is over: a planted twin may have been sent with it.
      const alone = await request(gateway.url)
        .get('/dashboard/api/session')
        .set('Cookie', session.cookie);
      expect(alone.status).toBe(401);
    }
  });

  it('does not stop a new sign-in, whose answer expires the stray cookie before setting its own', async () => {
    const signIn = await request(gateway.url)
      .post('/dashboard/api/session')
      .set('Host', 'dash.gateway.example')
      .set('Cookie', 'gateway_dashboard=planted-by-a-neighbour')
      .send({ admin_key: ADMIN_KEY });
    expect(signIn.status).toBe(200);
    expect(cleared(signIn)).toEqual(
      expect.arrayContaining([
        '/dashboard/api -',
        '/dashboard/api gateway.example',
        '/dashboard/api/session dash.gateway.example',
        '/ gateway.example',
      ]),
    );
    // Ours is not expired, only set, and last, so no clearing line can undo it.
    expect(cleared(signIn)).not.toContain('/dashboard -');
    const lines = setCookies(signIn);
    const ours = lines.at(-1)!;
    expect(ours).toMatch(/^gateway_dashboard=[^;]+; Path=\/dashboard; HttpOnly; SameSite=Strict$/);
    const current = await request(gateway.url)
      .get('/dashboard/api/session')
      .set('Cookie', ours.split(';')[0]);
    expect(current.status).toBe(200);
  });

  it('leaves alone a cookie of another name, and an IP host has no domain to clear', async () => {
    const session = await dashboardSignIn(gateway.url);
    const ok = await request(gateway.url)
      .get('/dashboard/api/session')
      .set('Cookie', `gateway_dashboard_signin=x; ${session.cookie}; other=1`);
    expect(ok.status).toBe(200);
    const refused = await request(gateway.url)
      .get('/dashboard/api/session')
      .set('Cookie', `${session.cookie}; ${session.cookie}`);
    expect(refused.status).toBe(401);
    expect(cleared(refused).every((line) => line.endsWith(' -'))).toBe(true);
  });
});
