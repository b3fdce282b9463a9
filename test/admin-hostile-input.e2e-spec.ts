import fc from 'fast-check';
import request from 'supertest';
import { ADMIN_KEY, adminApi } from './support/admin';
import { buildDashboard, dashboardSignIn, type DashboardSessionCookie } from './support/dashboard';
import { expressRoutes, nestRoutes, type RouteEntry } from './support/route-table';
import { startTestApp, TestApp } from './support/test-app';

// Every admin and dashboard route, driven with hostile values in each path parameter, query
// field and body field (non-finite and huge numbers, NUL and other control characters, unpaired
// surrogates, dates out of any range, ids of the wrong shape, wrong JSON types): no answer is a
// 5xx, and a 400 names the field (`param`). The routes and their fields are read from the Nest
// router, so a route or a field added later is driven too.

jest.setTimeout(120_000);

const PREFIXES = ['/admin', '/dashboard'];
const RUNS_PER_FIELD = 20;

const NASTY_TEXT = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\t',
  'line\nbreak',
  '\r',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\ud800',
  'x\udfff',
  '\u202etxt.exe',
  '\ufeff',
  '😀'.repeat(300),
  'x'.repeat(5000),
  "' OR 1=1 --",
  '../../../etc/passwd',
  '%00',
  '%',
  'null',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
];
const NASTY_NUMBERS = [
  'NaN',
  'Infinity',
  '-Infinity',
  '1e308',
  '-1e308',
  '1e-308',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '99999999999999999999',
  '-1',
  '0',
  '2147483648',
  '0x10',
  '1.5',
];
const NASTY_DATES = [
  '0000-01-01',
  '0001-01-01T00:00:00Z',
  '1969-12-31',
  '1970-01-01T00:00:00Z',
  '2026-02-30',
  '2026-13-01',
  '2026-W47',
  '9999-12-31',
  '9999-12-31T23:59:59.999-14:00',
  '10000-01-01',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2026-11-22T25:00:00Z',
];
const NASTY_IDS = [
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
  '6f1c1d0e-3f0e-4d8b-9a51-7a0d2c6b9e1',
  '6f1c1d0e3f0e4d8b9a517a0d2c6b9e10',
  '{6f1c1d0e-3f0e-4d8b-9a51-7a0d2c6b9e10}',
];

const text = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(...NASTY_TEXT, ...NASTY_NUMBERS, ...NASTY_DATES, ...NASTY_IDS),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
);
/** A query field: one value, or the field repeated. */
const queryValue = fc.oneof(text, fc.array(text, { minLength: 2, maxLength: 3 }));
/** A body field: any JSON value, numbers included (JSON has no NaN or Infinity; 1e308 it has). */
const bodyValue = fc.oneof(
  { weight: 3, arbitrary: text },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      1e308,
      -1e308,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      2 ** 53 + 2,
      2 ** 63,
      2 ** 31,
      -1,
      0,
      0.5,
    ),
  },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.array(text, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

/**
 * encodeURIComponent, but an unpaired surrogate (which it refuses) is sent as the three bytes
 * UTF-8 would give it: percent-encoding that does not decode to text, as a hostile client sends.
 */
function percentEncode(value: string): string {
  return value.replace(/\p{Cs}|[^\p{Cs}]+/gu, (part) => {
    if (!/^\p{Cs}$/u.test(part)) return encodeURIComponent(part);
    const unit = part.charCodeAt(0);
    return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
      .map((byte) => `%${byte.toString(16).toUpperCase()}`)
      .join('');
  });
}

type Input = { params: Record<string, string>; query: Record<string, unknown>; body?: unknown };

describe('admin and dashboard routes with hostile input', () => {
  let gateway: TestApp;
  let session: DashboardSessionCookie;
  let baseline: Record<string, () => Input>;
  const unique = (name: string) => `${name}-${process.pid}-${Date.now()}-${Math.random()}`;

  beforeAll(async () => {
    buildDashboard();
    gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        DASHBOARD_RATE_LIMIT: '1000000',
        DASHBOARD_SIGNIN_FAILURE_LIMIT: '1000000',
        LOG_LEVEL: 'fatal',
      },
    });
    session = await dashboardSignIn(gateway.url);
    const admin = adminApi(gateway.url);
    const key = (await admin.post('/keys', { name: unique('fuzz-key') }).expect(201)).body;
    const team = (await admin.post('/teams', { name: unique('fuzz-team') }).expect(201)).body;
    // Valid values for the inputs a route needs, so that the one hostile field is what it sees.
    const keyId = () => ({ params: { id: key.id }, query: {} });
    baseline = {
      'POST /admin/keys': () => ({ params: {}, query: {}, body: { name: unique('fuzz') } }),
      'POST /dashboard/api/keys': () => ({ params: {}, query: {}, body: { name: unique('fuzz') } }),
      'POST /admin/teams': () => ({ params: {}, query: {}, body: { name: unique('fuzz') } }),
      'PATCH /admin/keys/:id': keyId,
      'POST /admin/keys/:id/rotate': keyId,
      'POST /dashboard/api/keys/:id/rotate': keyId,
      'PATCH /admin/teams/:id': () => ({ params: { id: team.id }, query: {} }),
      'POST /dashboard/api/session': () => ({ params: {}, query: {}, body: { admin_key: 'x' } }),
    };
  });
  afterAll(() => gateway?.close());

  const routeName = (route: RouteEntry) => `${route.method} ${route.path}`;

  async function call(route: RouteEntry, input: Input): Promise<request.Response> {
    const path = route.path.replace(/:(\w+)/g, (_, name: string) =>
      percentEncode(input.params[name] ?? 'x'),
    );
    const query = Object.entries(input.query)
      .flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value]).map(
          (item) => `${percentEncode(name)}=${percentEncode(String(item))}`,
        ),
      )
      .join('&');
    const method = route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
    let test = request(gateway.url)[method](query ? `${path}?${query}` : path);
    if (route.path.startsWith('/admin')) test = test.set('Authorization', `Bearer ${ADMIN_KEY}`);
    else {
      // Signing out ends the session it is sent with: that route gets one of its own.
      const own =
        route.method === 'DELETE' && route.path === '/dashboard/api/session'
          ? await dashboardSignIn(gateway.url)
          : session;
      test = test.set('Cookie', own.cookie).set('X-CSRF-Token', own.csrf);
    }
    if (input.body !== undefined) test = test.send(input.body as object);
    return test.timeout(20_000);
  }

  /** What is wrong with the answer; null when it is fine. A 400 must name one of `fields`. */
  function problemOf(response: request.Response, fields: string[]): string | null {
    if (response.status >= 500) return `answered ${response.status}`;
    if (response.status !== 400) return null;
    const param: unknown = response.body?.error?.param;
    if (typeof param !== 'string') return 'answered 400 without naming the field';
    const named = param.split(/[.[]/)[0];
    return fields.includes(named) ? null : `answered 400 naming ${param}, no input of this route`;
  }

  const fieldsOf = (route: RouteEntry) => [
    'path',
    ...route.params,
    ...route.query,
    ...(route.body ?? []),
  ];

  it('drives every route with hostile values in every input, without a 5xx', async () => {
    const routes = nestRoutes(gateway.app, PREFIXES);
    // Nothing under /admin or /dashboard is mounted around Nest's router, so the table is whole.
    expect(expressRoutes(gateway.app, PREFIXES)).toEqual(routes.map(routeName).sort());
    expect(routes.length).toBeGreaterThan(25);

    const problems: string[] = [];
    let requests = 0;
    for (const route of routes) {
      const base = (): Input => {
        const known = baseline[routeName(route)]?.();
        return {
          params: { ...known?.params },
          query: { ...known?.query },
          body: route.body ? (known?.body ?? {}) : undefined,
        };
      };
      // Each input, and an unknown field every route must ignore, gets hostile values in turn.
      const targets: Array<[string, 'params' | 'query' | 'body', fc.Arbitrary<unknown>]> = [
        ...route.params.map((name): [string, 'params', fc.Arbitrary<unknown>] => [
          name,
          'params',
          text,
        ]),
        ...[...route.query, 'x_unknown'].map((name): [string, 'query', fc.Arbitrary<unknown>] => [
          name,
          'query',
          queryValue,
        ]),
        ...(route.body ? [...route.body, 'x_unknown'] : []).map(
          (name): [string, 'body', fc.Arbitrary<unknown>] => [name, 'body', bodyValue],
        ),
      ];
      for (const [field, where, values] of targets) {
        const outcome = await fc.check(
          fc.asyncProperty(values, async (value) => {
            const input = base();
            if (where === 'body') input.body = { ...(input.body as object), [field]: value };
            else input[where][field] = value;
            requests++;
            const response = await call(route, input);
            const problem = problemOf(response, fieldsOf(route));
            if (problem)
              throw new Error(`${problem}: ${JSON.stringify(response.body).slice(0, 300)}`);
          }),
          { numRuns: RUNS_PER_FIELD },
        );
        if (outcome.failed)
          problems.push(
            `${routeName(route)} ${where} ${field}=${JSON.stringify(outcome.counterexample?.[0])?.slice(0, 80)}: ${String((outcome.errorInstance as Error)?.message ?? outcome.errorInstance)}`,
          );
      }
    }
    expect(problems).toEqual([]);
    expect(requests).toBeGreaterThan(routes.length * RUNS_PER_FIELD);
  });

  it('answers a path parameter that is not valid percent-encoding with a 400 naming the path', async () => {
    const failures: string[] = [];
    for (const route of nestRoutes(gateway.app, PREFIXES).filter((r) => r.params.length > 0)) {
      const method = route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
      const malformed = route.path.replace(/:(\w+)/g, '%E0%A4%A');
      const test = request(gateway.url)[method];
      const answer = await test(malformed)
        .set('Authorization', `Bearer ${ADMIN_KEY}`)
        .set('Cookie', session.cookie)
        .set('X-CSRF-Token', session.csrf);
      if (answer.status !== 400 || answer.body.error?.param !== 'path')
        failures.push(`${routeName(route)}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    expect(failures).toEqual([]);
  });
});
