import request from 'supertest';
import { adminApi, ADMIN_KEY } from './support/admin';
import { chat } from './support/chat';
import { buildDashboard } from './support/dashboard';
import { eventually } from './support/eventually';
import { TestOidcProvider } from './support/oidc-provider';
import { csrfOf, oidcEnv, ssoSignIn } from './support/sso';
import { startTestApp, TestApp } from './support/test-app';

// Sign-ins through the provider and gateway starts take seconds on a busy machine.
jest.setTimeout(30_000);

const run = `${process.pid}-${Date.now()}`;
const ALPHA = `alpha-${run}`;
const BETA = `beta-${run}`;
const USERS = {
  alice: { email: 'alice@example.com', name: 'Alice', groups: ['gateway-admins'] },
  victor: { email: 'victor@example.com', name: 'Victor', groups: ['auditors'] },
  tara: { email: 'tara@example.com', name: 'Tara', groups: ['alpha-leads'] },
  mia: { email: 'mia@example.com', name: 'Mia', groups: ['staff'] },
  ming: { email: 'ming@example.com', name: 'Ming', groups: ['staff'] },
  nora: { email: 'nora@example.com', name: 'Nora', groups: ['cafeteria'] },
};
const ROLES = {
  'gateway-admins': 'admin',
  auditors: 'viewer',
  'alpha-leads': `team_admin:${ALPHA}`,
  staff: 'member',
};

/**
 * Each role's allowed and refused calls, on the admin API with the provider's ID token as bearer
 * and on the dashboard API with an SSO session. A refusal is a 403 permission_denied in the
 * error envelope, also for a key of another team or another member.
 */
describe('roles from groups, enforced on the admin API and the dashboard API', () => {
  let provider: TestOidcProvider;
  let gateway: TestApp;
  const tokens = new Map<string, string>();
  const teams: Record<string, string> = {};
  const keys: Record<string, string> = {};

  const asUser = (sub: string) => {
    const auth = `Bearer ${tokens.get(sub)}`;
    return {
      get: (path: string) => request(gateway.url).get(`/admin${path}`).set('Authorization', auth),
      post: (path: string, body: object = {}) =>
        request(gateway.url).post(`/admin${path}`).set('Authorization', auth).send(body),
      patch: (path: string, body: object) =>
        request(gateway.url).patch(`/admin${path}`).set('Authorization', auth).send(body),
      delete: (path: string) =>
        request(gateway.url).delete(`/admin${path}`).set('Authorization', auth),
    };
  };
  const refused = (response: request.Response) => {
    expect({ status: response.status, code: response.body.error?.code }).toEqual({
      status: 403,
      code: 'permission_denied',
    });
    expect(response.body.error.type).toBe('permission_error');
  };
  const names = (response: request.Response) =>
    (response.body.data as Array<{ name: string }>).map((item) => item.name).sort();

  beforeAll(async () => {
    buildDashboard();
    provider = await TestOidcProvider.start(USERS);
    gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        ...oidcEnv(provider, ROLES),
      },
    });
    provider.allowGateway(gateway.url);
    for (const sub of Object.keys(USERS)) tokens.set(sub, (await provider.tokensFor(sub)).idToken);
    const admin = adminApi(gateway.url);
    for (const name of [ALPHA, BETA])
      teams[name] = (await admin.post('/teams', { name })).body.id as string;
    for (const [name, team] of [
      [`a1-${run}`, ALPHA],
      [`b1-${run}`, BETA],
    ]) {
      const created = await admin.post('/keys', { name, team_id: teams[team] });
      keys[name] = created.body.id as string;
      // One request each, so the usage reports have something to hide from the wrong role.
      await chat(gateway, created.body.secret).expect(200);
    }
    await eventually(async () => {
      const usage = await admin.get(`/usage?key_id=${keys[`b1-${run}`]}`);
      expect(usage.body.data[0]?.requests).toBe(1);
    }, 5_000);
    keys[`mia-${run}`] = (await asUser('mia').post('/keys', { name: `mia-${run}` })).body.id;
    keys[`ming-${run}`] = (await asUser('ming').post('/keys', { name: `ming-${run}` })).body.id;
  });
  afterAll(async () => {
    await gateway?.close();
    await provider?.close();
  });

  it('admin: everything', async () => {
    const alice = asUser('alice');
    expect(names(await alice.get('/keys'))).toEqual(
      expect.arrayContaining(Object.keys(keys).sort()),
    );
    const team = await alice.post('/teams', { name: `gamma-${run}` });
    expect(team.status).toBe(201);
    expect(
      (await alice.patch(`/teams/${team.body.id}`, { budget_usd: '50', budget_period: 'month' }))
        .status,
    ).toBe(200);
    expect((await alice.delete(`/teams/${team.body.id}`)).status).toBe(200);
    expect((await alice.patch(`/keys/${keys[`b1-${run}`]}`, { rpm_limit: 5 })).status).toBe(200);
    expect((await alice.get('/audit')).status).toBe(200);
    expect((await alice.get('/spend')).status).toBe(200);
    // Past the role check; this gateway's table has no file to reload.
    expect((await alice.post('/config/reload')).body.error.code).toBe('invalid_gateway_config');
  });

  it('viewer: reads everything, changes nothing', async () => {
    const victor = asUser('victor');
    expect(names(await victor.get('/keys'))).toEqual(
      expect.arrayContaining(Object.keys(keys).sort()),
    );
    expect((await victor.get(`/keys/${keys[`b1-${run}`]}`)).status).toBe(200);
    expect(names(await victor.get('/teams'))).toEqual(expect.arrayContaining([ALPHA, BETA]));
    for (const path of ['/audit', '/spend', '/usage'])
      expect((await victor.get(path)).status).toBe(200);
    refused(await victor.post('/keys', { name: `v-${run}` }));
    refused(await victor.patch(`/keys/${keys[`a1-${run}`]}`, { rpm_limit: 1 }));
    refused(await victor.post(`/keys/${keys[`a1-${run}`]}/rotate`));
    refused(await victor.post(`/keys/${keys[`a1-${run}`]}/revoke`));
    refused(await victor.post('/teams', { name: `v-${run}` }));
    refused(await victor.patch(`/teams/${teams[ALPHA]}`, { budget_usd: '1' }));
    refused(await victor.delete(`/teams/${teams[ALPHA]}`));
    refused(await victor.post('/config/reload'));
  });

  it("team_admin: that team's keys, budgets and spend only", async () => {
    const tara = asUser('tara');
    expect(names(await tara.get('/keys'))).toEqual([`a1-${run}`]);
    refused(await tara.get(`/keys/${keys[`b1-${run}`]}`));
    const created = await tara.post('/keys', { name: `a2-${run}`, team_id: teams[ALPHA] });
    expect(created.status).toBe(201);
    refused(await tara.post('/keys', { name: `a3-${run}`, team_id: teams[BETA] }));
    refused(await tara.post('/keys', { name: `a4-${run}` }));
    const budget = await tara.patch(`/keys/${created.body.id}`, {
      budget_usd: '12.5',
      budget_period: 'month',
    });
    expect(budget.status).toBe(200);
    expect(budget.body.budget_usd).toBe('12.5');
    refused(await tara.patch(`/keys/${created.body.id}`, { team_id: teams[BETA] }));
    refused(await tara.patch(`/keys/${keys[`b1-${run}`]}`, { rpm_limit: 1 }));
    expect((await tara.post(`/keys/${created.body.id}/rotate`)).status).toBe(200);
    refused(await tara.post(`/keys/${keys[`b1-${run}`]}/revoke`));
    refused(await tara.post(`/keys/${keys[`mia-${run}`]}/rotate`));
    expect(names(await tara.get('/teams'))).toEqual([ALPHA]);
    refused(await tara.get(`/teams/${teams[BETA]}`));
    refused(await tara.patch(`/teams/${teams[ALPHA]}`, { budget_usd: '1000' }));
    const spend = await tara.get('/spend?group_by=key');
    expect(spend.status).toBe(200);
    expect(spend.body.team_id).toBe(teams[ALPHA]);
    refused(await tara.get(`/spend?team_id=${teams[BETA]}`));
    refused(await tara.get('/usage?group_by=model'));
    const usage = await tara.get('/usage?group_by=key');
    expect(usage.body.data.map((row: { key_name: string }) => row.key_name)).toEqual([`a1-${run}`]);
    refused(await tara.get('/audit'));
    refused(await tara.post('/config/reload'));
  });

  it('member: creates keys of their own, rotates and revokes them, sees nothing else', async () => {
    const mia = asUser('mia');
    expect(names(await mia.get('/keys'))).toEqual([`mia-${run}`]);
    const own = await mia.get(`/keys/${keys[`mia-${run}`]}`);
    expect(own.body.owner_user_id).toEqual(expect.any(String));
    refused(await mia.get(`/keys/${keys[`ming-${run}`]}`));
    refused(await mia.post('/keys', { name: `mia-team-${run}`, team_id: teams[ALPHA] }));
    expect(
      (await mia.post(`/keys/${keys[`mia-${run}`]}/rotate`, { grace_seconds: 0 })).status,
    ).toBe(200);
    refused(await mia.post(`/keys/${keys[`ming-${run}`]}/revoke`));
    refused(await mia.post(`/keys/${keys[`a1-${run}`]}/rotate`));
    refused(await mia.patch(`/keys/${keys[`mia-${run}`]}`, { rpm_limit: 1000 }));
    refused(await mia.get('/teams'));
    refused(await mia.get('/audit'));
    refused(await mia.get('/spend'));
    expect((await mia.get(`/spend?key_id=${keys[`mia-${run}`]}`)).status).toBe(200);
    refused(await mia.get(`/spend?key_id=${keys[`ming-${run}`]}`));
    expect((await mia.get(`/usage?group_by=model&key_id=${keys[`mia-${run}`]}`)).status).toBe(200);
    refused(await mia.get(`/usage?key_id=${keys[`ming-${run}`]}`));
    const revoked = await mia.post(`/keys/${keys[`mia-${run}`]}/revoke`);
    expect(revoked.body.status).toBe('revoked');
  });

  it('no mapped group: every admin call is a 403', async () => {
    const nora = asUser('nora');
    for (const path of ['/keys', '/teams', '/usage', '/spend', '/audit'])
      refused(await nora.get(path));
    refused(await nora.post('/keys', { name: `nora-${run}` }));
  });

  it('the dashboard API enforces the same roles for SSO sessions', async () => {
    const session = async (sub: string) => {
      const { cookie } = await ssoSignIn(gateway.url, provider, sub);
      const csrf = await csrfOf(gateway.url, cookie!);
      const get = (path: string) =>
        request(gateway.url).get(`/dashboard/api${path}`).set('Cookie', cookie!);
      const post = (path: string, body: object = {}) =>
        request(gateway.url)
          .post(`/dashboard/api${path}`)
          .set('Cookie', cookie!)
          .set('X-CSRF-Token', csrf)
          .send(body);
      return { get, post };
    };

    const victor = await session('victor');
    const seen = await victor.get('/keys?per_page=100');
    expect(seen.status).toBe(200);
    expect(seen.body.create).toMatchObject({ allowed: false, without_team: false, teams: [] });
    expect(seen.body.data.every((key: { can_write: boolean }) => !key.can_write)).toBe(true);
    refused(await victor.post('/keys', { name: `dv-${run}` }));
    refused(await victor.post(`/keys/${keys[`a1-${run}`]}/revoke`));
    expect((await victor.get('/audit')).status).toBe(200);

    const tara = await session('tara');
    const list = await tara.get('/keys?per_page=100');
    expect(list.body.data.map((key: { name: string }) => key.name).sort()).toEqual([
      `a1-${run}`,
      `a2-${run}`,
    ]);
    expect(list.body.data[0]).toMatchObject({ team_name: ALPHA, can_write: true });
    expect(list.body.create).toMatchObject({
      allowed: true,
      without_team: false,
      teams: [{ id: teams[ALPHA], name: ALPHA }],
    });
    const created = await tara.post('/keys', { name: `da-${run}`, team_id: teams[ALPHA] });
    expect(created.status).toBe(201);
    refused(await tara.post('/keys', { name: `db-${run}`, team_id: teams[BETA] }));
    refused(await tara.post(`/keys/${keys[`b1-${run}`]}/rotate`));
    refused(await tara.get('/audit'));
    const usage = await tara.get('/usage');
    expect(usage.body.by_key.map((group: { name: string }) => group.name)).toEqual([`a1-${run}`]);
    const all = await victor.get('/usage');
    expect(all.body.by_key.map((group: { name: string }) => group.name)).toEqual(
      expect.arrayContaining([`a1-${run}`, `b1-${run}`]),
    );
    // The per-model and per-endpoint series count only the keys in reach too.
    const requests = (series: Array<{ points: Array<{ requests: number }> }>) =>
      series.reduce((n, s) => n + s.points.reduce((m, p) => m + p.requests, 0), 0);
    expect(requests(usage.body.by_key)).toBeGreaterThan(0);
    expect(requests(usage.body.by_model)).toBe(requests(usage.body.by_key));
    expect(requests(usage.body.by_endpoint)).toBe(requests(usage.body.by_key));
    expect(requests(all.body.by_model)).toBeGreaterThan(requests(usage.body.by_model));

    const ming = await session('ming');
    const mine = await ming.get('/keys');
    expect(mine.body.data.map((key: { name: string }) => key.name)).toEqual([`ming-${run}`]);
    expect(mine.body.create).toEqual({
      allowed: true,
      without_team: true,
      teams: [],
      budget_periods: ['day', 'month', 'total'],
    });
    refused(await ming.post(`/keys/${keys[`a1-${run}`]}/revoke`));
    expect((await ming.post(`/keys/${keys[`ming-${run}`]}/rotate`)).status).toBe(200);
    refused(await ming.get('/audit'));
  });
});
