import request from 'supertest';
import { ADMIN_KEY } from './support/admin';
import { buildDashboard, dashboardSignIn, DashboardSessionCookie } from './support/dashboard';
import { eventually, sleep } from './support/eventually';
import { closedPort } from './support/ports';
import { startTestApp, TestApp } from './support/test-app';

const unique = (name: string) => `${name}-${process.pid}-${Date.now()}`;

beforeAll(() => buildDashboard());

describe('dashboard: page and sign-in', () => {
  let gateway: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        DASHBOARD_RATE_LIMIT: '1000',
        PUBLIC_BASE_URL: 'https://llm.example.com/',
      },
    });
  });
  afterAll(() => gateway.close());

  it('serves the page with a strict CSP and no framing', async () => {
    const page = await request(gateway.url).get('/dashboard');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('/dashboard/assets/app.js');
    expect(page.text).not.toMatch(/<script>|<script(?![^>]*src=)[^>]*>/); // no inline script
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    const script = await request(gateway.url).get('/dashboard/assets/app.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect((await request(gateway.url).get('/dashboard/assets/..%2Fpackage.json')).status).toBe(
      404,
    );
  });

  it('exchanges the admin key for an HttpOnly, SameSite=Strict session cookie; Secure over HTTPS', async () => {
    const session = await dashboardSignIn(gateway.url);
    expect(session.setCookie).toMatch(/HttpOnly/);
    expect(session.setCookie).toMatch(/SameSite=Strict/);
    expect(session.setCookie).toMatch(/Path=\/dashboard/);
    // The idle expiry is the server's: the cookie itself lasts for the browser session.
    expect(session.setCookie).not.toMatch(/Max-Age|Expires/);
    expect(session.setCookie).not.toContain(ADMIN_KEY);
    // PUBLIC_BASE_URL is https here, so the cookie is Secure.
    expect(session.setCookie).toMatch(/Secure/);
    const current = await request(gateway.url)
      .get('/dashboard/api/session')
      .set('Cookie', session.cookie);
    expect(current.status).toBe(200);
    expect(current.body.csrf_token).toBe(session.csrf);
  });

  it('refuses a wrong admin key with 401 invalid_admin_key', async () => {
    const response = await request(gateway.url)
      .post('/dashboard/api/session')
      .send({ admin_key: `${ADMIN_KEY}x` });
    expect(response.status).toBe(401);
    expect(response.body.error).toMatchObject({
      code: 'invalid_admin_key',
      type: 'invalid_request_error',
    });
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('answers 401 dashboard_session_required without a session, or with an unknown one', async () => {
    for (const cookie of [undefined, 'gateway_dashboard=forged']) {
      let call = request(gateway.url).get('/dashboard/api/keys');
      if (cookie) call = call.set('Cookie', cookie);
      const response = await call;
      expect(response.status).toBe(401);
      expect(response.body.error).toMatchObject({
        code: 'dashboard_session_required',
        type: 'invalid_request_error',
      });
    }
  });

  it('needs the CSRF token on state-changing calls (403 without or with a wrong one)', async () => {
    const session = await dashboardSignIn(gateway.url);
    const body = { name: unique('csrf') };
    const without = await request(gateway.url)
      .post('/dashboard/api/keys')
      .set('Cookie', session.cookie)
      .send(body);
    expect(without.status).toBe(403);
    expect(without.body.error).toMatchObject({
      code: 'csrf_token_invalid',
      type: 'permission_error',
    });
    const wrong = await request(gateway.url)
      .post('/dashboard/api/keys')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', 'nope')
      .send(body);
    expect(wrong.status).toBe(403);
    const right = await request(gateway.url)
      .post('/dashboard/api/keys')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send(body);
    expect(right.status).toBe(201);
    expect(right.body.secret).toMatch(/^gk-/);
  });

  it('signs out: the session is gone', async () => {
    const session = await dashboardSignIn(gateway.url);
    const out = await request(gateway.url)
      .delete('/dashboard/api/session')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf);
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/gateway_dashboard=;/);
    expect(
      (await request(gateway.url).get('/dashboard/api/session').set('Cookie', session.cookie))
        .status,
    ).toBe(401);
  });

  it('answers 413 request_too_large for a body over 100 KiB, in the error envelope', async () => {
    const session = await dashboardSignIn(gateway.url);
    const response = await request(gateway.url)
      .post('/dashboard/api/keys')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(101 * 1024) }));
    expect(response.status).toBe(413);
    expect(response.body.error).toMatchObject({
      code: 'request_too_large',
      type: 'invalid_request_error',
    });
  });

  it('shows <PUBLIC_BASE_URL>/v1, the models with their deployments, version and uptime', async () => {
    const session = await dashboardSignIn(gateway.url);
    const response = await request(gateway.url)
      .get('/dashboard/api/overview')
      .set('Cookie', session.cookie);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      base_url: 'https://llm.example.com/v1',
      version: expect.any(String),
      uptime_seconds: expect.any(Number),
    });
    expect(response.body.models.map((m: { id: string }) => m.id)).toContain('alpha-k3');
    expect(response.body.models[0].deployments[0]).toMatchObject({
      name: expect.any(String),
      provider: 'mock',
      health: 'available',
    });
  });

  it('lists keys with search and pagination, and rotates and revokes', async () => {
    const session = await dashboardSignIn(gateway.url);
    const prefix = unique('page');
    for (let i = 0; i < 3; i++) {
      const created = await request(gateway.url)
        .post('/dashboard/api/keys')
        .set('Cookie', session.cookie)
        .set('X-CSRF-Token', session.csrf)
        .send({ name: `${prefix}-${i}` });
      expect(created.status).toBe(201);
    }
    const first = await request(gateway.url)
      .get(`/dashboard/api/keys?search=${prefix}&per_page=2&page=1`)
      .set('Cookie', session.cookie);
    expect(first.body).toMatchObject({
      object: 'list',
      page: 1,
      per_page: 2,
      total: 3,
      models: expect.arrayContaining(['alpha-k3']),
    });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0]).toMatchObject({
      key_prefix: expect.stringMatching(/^gk-/),
      status: 'active',
      last_used_at: null,
    });
    const second = await request(gateway.url)
      .get(`/dashboard/api/keys?search=${prefix}&per_page=2&page=2`)
      .set('Cookie', session.cookie);
    expect(second.body.data).toHaveLength(1);
    // Newest first.
    expect(
      [...first.body.data, ...second.body.data].map((key: { name: string }) => key.name),
    ).toEqual([`${prefix}-2`, `${prefix}-1`, `${prefix}-0`]);

    const id = first.body.data[0].id;
    const rotated = await request(gateway.url)
      .post(`/dashboard/api/keys/${id}/rotate`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send({ grace_seconds: 0 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^gk-/);
    const revoked = await request(gateway.url)
      .post(`/dashboard/api/keys/${id}/revoke`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
  });

  it("reports usage over time per key, per model and per endpoint, and each key's last use", async () => {
    const session = await dashboardSignIn(gateway.url);
    const name = unique('usage');
    const secret = await gateway.createKey({ name });
    const chat = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${secret}`)
      .send({ model: 'alpha-k3', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(200);
    const message = await request(gateway.url)
      .post('/v1/messages')
      .set('x-api-key', secret)
      .send({ model: 'alpha-k3', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.status).toBe(200);
    const response = await request(gateway.url)
      .post('/v1/responses')
      .set('Authorization', `Bearer ${secret}`)
      .send({ model: 'alpha-k3', input: 'hi', store: false });
    expect(response.status).toBe(200);
    await eventually(
      async () => {
        const usage = await request(gateway.url)
          .get('/dashboard/api/usage')
          .set('Cookie', session.cookie);
        expect(usage.status).toBe(200);
        const key = usage.body.by_key.find((series: { name: string }) => series.name === name);
        expect(key.points).toHaveLength(1);
        const { input_tokens, output_tokens } = message.body.usage;
        expect(key.points[0]).toMatchObject({
          requests: 3,
          errors: 0,
          total_tokens:
            chat.body.usage.total_tokens +
            input_tokens +
            output_tokens +
            response.body.usage.total_tokens,
          avg_latency_ms: expect.any(Number),
          // The embedded mock has no price: cost unknown, not zero.
          cost_usd: null,
        });
        expect(
          usage.body.by_model.find((series: { id: string }) => series.id === 'alpha-k3').points[0]
            .requests,
        ).toBeGreaterThanOrEqual(1);
        const endpoints = usage.body.by_endpoint.map((series: { id: string }) => series.id);
        expect(endpoints).toEqual(
          expect.arrayContaining(['chat_completions', 'messages', 'responses']),
        );
      },
      5_000,
      100,
    );
    const keys = await request(gateway.url)
      .get(`/dashboard/api/keys?search=${name}`)
      .set('Cookie', session.cookie);
    expect(keys.body.data[0].last_used_at).toEqual(expect.any(String));
    const bad = await request(gateway.url)
      .get('/dashboard/api/usage?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z')
      .set('Cookie', session.cookie);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_parameter');
  });
});

describe('dashboard: without PUBLIC_BASE_URL', () => {
  it('takes the base URL from the request host, and sets Secure only for HTTPS requests', async () => {
    const gateway = await startTestApp({ env: { ADMIN_API_KEY: ADMIN_KEY } });
    try {
      const plain = await dashboardSignIn(gateway.url);
      expect(plain.setCookie).not.toMatch(/Secure/);
      const overview = await request(gateway.url)
        .get('/dashboard/api/overview')
        .set('Cookie', plain.cookie);
      expect(overview.body.base_url).toBe(`${gateway.url}/v1`);
      const proxied = await request(gateway.url)
        .post('/dashboard/api/session')
        .set('X-Forwarded-Proto', 'https')
        .send({ admin_key: ADMIN_KEY });
      expect(String(proxied.headers['set-cookie'])).toMatch(/; Secure/);
    } finally {
      await gateway.close();
    }
  });
});

describe('dashboard: limits', () => {
  it('allows 10 API calls per 10 s per session, then 429 with Retry-After; another session is unaffected', async () => {
    const gateway = await startTestApp({ env: { ADMIN_API_KEY: ADMIN_KEY } });
    try {
      const session = await dashboardSignIn(gateway.url);
      for (let i = 0; i < 10; i++)
        expect(
          (await request(gateway.url).get('/dashboard/api/overview').set('Cookie', session.cookie))
            .status,
        ).toBe(200);
      const refused = await request(gateway.url)
        .get('/dashboard/api/keys')
        .set('Cookie', session.cookie);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(10);
      const other: DashboardSessionCookie = await dashboardSignIn(gateway.url);
      expect(
        (await request(gateway.url).get('/dashboard/api/overview').set('Cookie', other.cookie))
          .status,
      ).toBe(200);
      // Signing out is never refused for going too fast.
      const out = await request(gateway.url)
        .delete('/dashboard/api/session')
        .set('Cookie', session.cookie)
        .set('X-CSRF-Token', session.csrf);
      expect(out.status).toBe(204);
    } finally {
      await gateway.close();
    }
  });

  it('limits failed sign-ins per client: beyond the limit a wrong key gets 429 + Retry-After, the right key still signs in', async () => {
    const gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, DASHBOARD_SIGNIN_FAILURE_LIMIT: '3' },
    });
    try {
      const signIn = (adminKey: string) =>
        request(gateway.url).post('/dashboard/api/session').send({ admin_key: adminKey });
      // Successes are not counted.
      await dashboardSignIn(gateway.url);
      await dashboardSignIn(gateway.url);
      for (let i = 0; i < 3; i++) expect((await signIn(`wrong-${i}`)).status).toBe(401);
      const locked = await signIn('wrong-3');
      expect(locked.status).toBe(429);
      expect(locked.body.error.code).toBe('rate_limit_exceeded');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
      expect((await signIn(ADMIN_KEY)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('lets no concurrent guess slip past the failed sign-in limit', async () => {
    const gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, DASHBOARD_SIGNIN_FAILURE_LIMIT: '3' },
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          request(gateway.url)
            .post('/dashboard/api/session')
            .send({ admin_key: `guess-${i}` }),
        ),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses.filter((status) => status === 401)).toHaveLength(3);
      expect(statuses.filter((status) => status === 429)).toHaveLength(9);
    } finally {
      await gateway.close();
    }
  });

  it('ends a session after DASHBOARD_SESSION_IDLE_MS without requests; activity keeps it alive', async () => {
    const gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        DASHBOARD_SESSION_IDLE_MS: '1000',
        DASHBOARD_RATE_LIMIT: '1000',
      },
    });
    try {
      const session = await dashboardSignIn(gateway.url);
      for (let i = 0; i < 3; i++) {
        await sleep(600);
        expect(
          (await request(gateway.url).get('/dashboard/api/session').set('Cookie', session.cookie))
            .status,
        ).toBe(200);
      }
      await sleep(1_100);
      const expired = await request(gateway.url)
        .get('/dashboard/api/session')
        .set('Cookie', session.cookie);
      expect(expired.status).toBe(401);
      expect(expired.body.error.code).toBe('dashboard_session_required');
    } finally {
      await gateway.close();
    }
  });

  it('does not exist without ADMIN_API_KEY (404)', async () => {
    const gateway = await startTestApp();
    try {
      for (const path of ['/dashboard', '/dashboard/assets/app.js', '/dashboard/api/overview']) {
        const response = await request(gateway.url).get(path);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('not_found');
      }
      const signIn = await request(gateway.url)
        .post('/dashboard/api/session')
        .send({ admin_key: 'whatever-long-enough' });
      expect(signIn.status).toBe(404);
    } finally {
      await gateway.close();
    }
  });
});

describe('dashboard: deployment health from routing', () => {
  let gateway: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp({
      models: {
        flaky: [
          {
            provider: 'openai',
            name: 'flaky-dead',
            base_url: `http://127.0.0.1:${await closedPort()}/v1`,
            api_key: 'sk-dead',
            model: 'm',
          },
          { provider: 'mock', name: 'flaky-mock', weight: 0 },
        ],
      },
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        DASHBOARD_RATE_LIMIT: '1000',
        KEY_RPM_LIMIT: '0',
        DEPLOYMENT_FAILURE_THRESHOLD: '2',
        DEPLOYMENT_COOLDOWN_MS: '60000',
      },
    });
  });
  afterAll(() => gateway.close());

  it('shows a deployment that failed repeatedly as cooling down, the others as available', async () => {
    const key = await gateway.createKey();
    for (let i = 0; i < 2; i++) {
      const answer = await request(gateway.url)
        .post('/v1/chat/completions')
        .set('Authorization', `Bearer ${key}`)
        .send({ model: 'flaky', messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.status).toBe(200); // the standby answered
    }
    const session = await dashboardSignIn(gateway.url);
    const overview = await request(gateway.url)
      .get('/dashboard/api/overview')
      .set('Cookie', session.cookie);
    const deployments = overview.body.models.find(
      (m: { id: string }) => m.id === 'flaky',
    ).deployments;
    expect(deployments).toEqual([
      expect.objectContaining({
        name: 'flaky-dead',
        health: 'cooling_down',
        consecutive_failures: 2,
        cooling_until: expect.any(String),
      }),
      expect.objectContaining({
        name: 'flaky-mock',
        health: 'available',
        consecutive_failures: 0,
        cooling_until: null,
      }),
    ]);
    expect(Date.parse(deployments[0].cooling_until)).toBeGreaterThan(Date.now());
  });
});
