import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { ADMIN_KEY } from './support/admin';
import { buildDashboard, dashboardSignIn } from './support/dashboard';
import { startTestApp, TestApp } from './support/test-app';

interface Route {
  method: string;
  path: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Every route the running app serves under `prefix`, read from Express's router, once each
 * (middleware bound to all methods shows up as a route too; its other verbs are left out).
 */
function routesOf(app: NestExpressApplication, prefix: string): Route[] {
  const stack = app.getHttpAdapter().getInstance().router.stack as Array<{
    route?: { path: unknown; methods: Record<string, boolean> };
  }>;
  const routes = new Map<string, Route>();
  for (const { route } of stack) {
    const paths = [route?.path].flat();
    for (const path of paths) {
      if (typeof path !== 'string' || !path.startsWith(prefix)) continue;
      for (const method of METHODS.filter((name) => route!.methods[name]))
        routes.set(`${method} ${path}`, { method: method.toUpperCase(), path });
    }
  }
  return [...routes.values()];
}

const unique = (name: string) => `${name}-${process.pid}-${Date.now()}-${Math.random()}`;

/**
 * A browser or a proxy may keep what it is not told to drop: every dashboard answer and every
 * admin answer holding a secret says `Cache-Control: no-store` (docs/dashboard.md, "Headers").
 */
describe('Cache-Control: no-store', () => {
  let gateway: TestApp;

  beforeAll(async () => {
    buildDashboard();
    gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, DASHBOARD_RATE_LIMIT: '1000', ADMIN_RATE_LIMIT: '1000' },
    });
  });
  afterAll(() => gateway.close());

  /** A real id for `:id`: a fresh key for the key routes (one may revoke it), a team for teams'. */
  async function idFor(path: string): Promise<string> {
    if (path.includes('/teams/')) {
      const team = await request(gateway.url)
        .post('/admin/teams')
        .set('Authorization', `Bearer ${ADMIN_KEY}`)
        .send({ name: unique('cache-team') });
      return team.body.id;
    }
    return (await gateway.createKeyWithId({ name: unique('cache-key') })).id;
  }

  async function call(route: Route, headers: Record<string, string>) {
    let path = route.path.replace(':file', 'app.js');
    if (path.includes(':id')) path = path.replace(':id', await idFor(path));
    let answer = request(gateway.url)[route.method.toLowerCase() as 'get'](path);
    for (const [name, value] of Object.entries(headers)) answer = answer.set(name, value);
    if (route.method !== 'GET' && route.method !== 'DELETE')
      answer = answer.send({ name: unique('cache-body') });
    return answer.redirects(0);
  }

  it('on every dashboard page and API answer, signed in or not, found or not', async () => {
    const routes = [
      ...routesOf(gateway.app, '/dashboard'),
      { method: 'GET', path: '/dashboard/no-such-page' },
      { method: 'GET', path: '/dashboard/api/no-such-call' },
    ];
    // The enumeration found the page, its files, sign-in, SSO and the collection endpoints.
    expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining([
        'GET /dashboard',
        'GET /dashboard/assets/:file',
        'POST /dashboard/api/session',
        'GET /dashboard/auth/callback',
        'POST /dashboard/api/keys',
        'POST /dashboard/api/keys/:id/rotate',
        'GET /dashboard/api/usage',
      ]),
    );
    const answers: string[] = [];
    for (const route of routes) {
      // A session of its own each time: one route signs out.
      const session = await dashboardSignIn(gateway.url);
      for (const headers of [{}, { Cookie: session.cookie, 'X-CSRF-Token': session.csrf }]) {
        const answer = await call(route, headers);
        answers.push(
          `${route.method} ${route.path} ${answer.status} ${answer.headers['cache-control']}`,
        );
      }
    }
    expect(answers.filter((answer) => !answer.endsWith(' no-store'))).toEqual([]);
    // The signed-in calls were answered, not only refused.
    expect(answers).toEqual(
      expect.arrayContaining([
        'GET /dashboard 200 no-store',
        'GET /dashboard/assets/:file 200 no-store',
        'POST /dashboard/api/keys 201 no-store',
        'POST /dashboard/api/keys/:id/rotate 200 no-store',
      ]),
    );
  });

  it('on every admin API answer that holds a secret', async () => {
    const routes = routesOf(gateway.app, '/admin');
    const withSecret: string[] = [];
    for (const route of routes) {
      const answer = await call(route, { Authorization: `Bearer ${ADMIN_KEY}` });
      expect(answer.status).toBeLessThan(500);
      if (typeof answer.body?.secret !== 'string') continue;
      withSecret.push(`${route.method} ${route.path}`);
      expect([`${route.method} ${route.path}`, answer.headers['cache-control']]).toEqual([
        `${route.method} ${route.path}`,
        'no-store',
      ]);
    }
    expect(withSecret).toEqual(
      expect.arrayContaining(['POST /admin/keys', 'POST /admin/keys/:id/rotate']),
    );
  });
});
