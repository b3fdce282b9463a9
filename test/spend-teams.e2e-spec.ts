import request from 'supertest';
import { ADMIN_KEY, adminApi } from './support/admin';
import { chat, chatBody } from './support/chat';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';
import { completion, FakeOpenAiUpstream } from './support/upstreams/openai-upstream';

// Teams through the admin API (docs/spend.md): a team's dollar budget, token budget and
// allow-list apply on top of each member key's own; the stricter wins. Spend by team and key
// comes from GET /admin/spend, also as CSV. PROMPT is an estimate of 10 tokens; at $1/M input and
// $2/M output a request with max_tokens 10 holds $0.00003 and, answered with 10 + 10 tokens,
// costs exactly that.

// An estimate of 10 tokens for gpt-4o: 3 of text, 7 of the chat format.
const PROMPT = 'Say hello politely';
const PRICE = { input: '1', output: '2' };

describe('teams', () => {
  let upstream: FakeOpenAiUpstream;
  let gateway: TestApp;
  let admin: ReturnType<typeof adminApi>;

  beforeAll(async () => {
    upstream = await FakeOpenAiUpstream.start();
    const deployment = {
      provider: 'openai',
      base_url: upstream.url,
      api_key: 'sk-up',
      model: 'gpt-4o',
      price: PRICE,
    };
    gateway = await startTestApp({
      models: { 'alpha-k3': [deployment], 'beta-v4-pro-0813': [deployment] },
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        USAGE_FLUSH_INTERVAL_MS: '20',
        REDIS_URL: '',
      },
    });
    admin = adminApi(gateway.url);
  });

  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  // Two keys may be made in the same millisecond: the counter keeps their names apart.
  let made = 0;
  const unique = (name: string) => `${name}-${process.pid}-${Date.now()}-${++made}`;

  async function memberKey(teamId: string, settings: object = {}) {
    const created = await admin.post('/keys', {
      name: unique('member'),
      team_id: teamId,
      rpm_limit: 0,
      ...settings,
    });
    expect(created.status).toBe(201);
    expect(created.body.team_id).toBe(teamId);
    return created.body as { id: string; secret: string };
  }

  function answeredChat(secret: string, model = 'alpha-k3') {
    upstream.next(completion('x', { prompt_tokens: 10, completion_tokens: 10 }));
    return chat(gateway, secret, { ...chatBody(model, PROMPT), max_tokens: 10 });
  }

  it('creates, reads, renames and validates teams', async () => {
    const name = unique('research');
    const created = await admin.post('/teams', {
      name,
      budget_usd: '500',
      budget_period: 'month',
      token_budget: 1_000_000,
      allowed_models: ['alpha-k3'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'team',
      name,
      budget_usd: '500',
      budget_period: 'month',
      token_budget: 1_000_000,
      allowed_models: ['alpha-k3'],
    });
    expect((await admin.get(`/teams/${name}`)).body.id).toBe(created.body.id);
    const renamed = await admin.patch(`/teams/${created.body.id}`, {
      name: `${name}-2`,
      budget_usd: '12.345678',
    });
    expect(renamed.body).toMatchObject({ name: `${name}-2`, budget_usd: '12.345678' });
    expect((await admin.get('/teams')).body.data.map((t: { id: string }) => t.id)).toContain(
      created.body.id,
    );
    expect((await admin.post('/teams', { name: `${name}-2` })).body.error.code).toBe(
      'team_name_taken',
    );
    const refusals = await Promise.all([
      admin.post('/teams', { name: unique('a'), budget_usd: 5, budget_period: 'day' }),
      admin.post('/teams', { name: unique('b'), budget_usd: '5.1234567', budget_period: 'day' }),
      admin.post('/teams', { name: unique('c'), budget_usd: '-5', budget_period: 'day' }),
      admin.post('/teams', { name: unique('d'), budget_usd: '0', budget_period: 'day' }),
      admin.post('/teams', { name: unique('e'), budget_usd: '5' }),
      admin.post('/teams', { name: unique('f'), allowed_models: ['no-such-model'] }),
      admin.post('/teams', { name: unique('g'), budget_period: 'week', token_budget: 5 }),
    ]);
    for (const refused of refusals) {
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_parameter');
    }
    expect(refusals[0].body.error.message).toMatch(/budget_usd must be a decimal string/);
    const missing = await admin.get('/teams/no-such-team');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('team_not_found');
  });

  it('keys join and leave teams; an unknown team_id is a 400', async () => {
    const team = (await admin.post('/teams', { name: unique('join') })).body;
    const key = await memberKey(team.id);
    const left = await admin.patch(`/keys/${key.id}`, { team_id: null });
    expect(left.body.team_id).toBeNull();
    const moved = await admin.patch(`/keys/${key.id}`, { team_id: team.id });
    expect(moved.body.team_id).toBe(team.id);
    const unknown = await admin.patch(`/keys/${key.id}`, {
      team_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_parameter', param: 'team_id' });
    const badKeyBudget = await admin.post('/keys', { name: unique('k'), budget_usd: '1' });
    expect(badKeyBudget.status).toBe(400);
    const deleted = await admin.delete(`/teams/${team.id}`);
    expect(deleted.body).toMatchObject({ deleted: true, keys_left_team: 1 });
    expect((await admin.get(`/keys/${key.id}`)).body.team_id).toBeNull();
  });

  it("the team's dollar budget caps all its keys together, though each key's own is larger", async () => {
    const team = (
      await admin.post('/teams', {
        name: unique('capped'),
        budget_usd: '0.00009',
        budget_period: 'day',
      })
    ).body;
    const a = await memberKey(team.id, { budget_usd: '1', budget_period: 'day' });
    const b = await memberKey(team.id, { budget_usd: '1', budget_period: 'day' });
    const statuses: number[] = [];
    for (const secret of [a.secret, b.secret, a.secret, b.secret])
      statuses.push((await answeredChat(secret)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await answeredChat(a.secret);
    expect(refused.body.error.code).toBe('spend_budget_exceeded');
    expect(refused.body.error.message).toMatch(/dollar budget of this API key's team is spent/);
    expect(refused.headers['x-should-retry']).toBe('false');

    // Spend by team and by key, from the rollups.
    await eventually(async () => {
      const byTeam = await admin.get(`/spend?group_by=team&team_id=${team.id}`);
      expect(byTeam.body.data).toEqual([
        expect.objectContaining({
          team_id: team.id,
          team_name: team.name,
          requests: 3,
          cost_usd: '0.00009',
        }),
      ]);
    }, 5_000);
    const byKey = await admin.get(`/spend?group_by=key&team_id=${team.id}`);
    expect(byKey.body.data.map((row: { cost_usd: string }) => row.cost_usd).sort()).toEqual([
      '0.00003',
      '0.00006',
    ]);
    const csv = await admin.get(`/spend?group_by=team&team_id=${team.id}&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/attachment; filename="spend-by-team/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'team_id,team_name,requests,completed,failed,aborted,prompt_tokens,completion_tokens,cached_tokens,cache_write_tokens,reasoning_tokens,cost_usd,unpriced_requests',
    );
    expect(lines[1]).toBe(`${team.id},${team.name},3,3,0,0,30,30,0,0,0,0.00009,0`);
    const today = new Date().toISOString().slice(0, 10);
    const byDay = await admin.get(`/spend?group_by=day&team_id=${team.id}&from=${today}`);
    expect(byDay.body.data).toEqual([expect.objectContaining({ day: today, requests: 3 })]);
    const badDay = await admin.get('/spend?from=2026-13-01');
    expect(badDay.status).toBe(400);
    expect(badDay.body.error.message).toMatch(/YYYY-MM-DD/);
    const badGroup = await admin.get('/spend?group_by=week');
    expect(badGroup.status).toBe(400);
  });

  it("the team's allow-list applies on top of the key's", async () => {
    const team = (
      await admin.post('/teams', { name: unique('allow'), allowed_models: ['alpha-k3'] })
    ).body;
    const key = await memberKey(team.id);
    expect((await answeredChat(key.secret, 'alpha-k3')).status).toBe(200);
    const refused = await answeredChat(key.secret, 'beta-v4-pro-0813');
    upstream.clearQueue(); // the refused request left its answer queued
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'model_not_allowed', param: 'model' });
    expect(refused.body.error.message).toMatch(/team is not allowed/);
    // GET /v1/models lists only what both lists allow.
    const listed = await request(gateway.url)
      .get('/v1/models')
      .set('Authorization', `Bearer ${key.secret}`);
    expect(listed.body.data.map((model: { id: string }) => model.id)).toEqual(['alpha-k3']);
    const hidden = await request(gateway.url)
      .get('/v1/models/beta-v4-pro-0813')
      .set('Authorization', `Bearer ${key.secret}`);
    expect(hidden.status).toBe(404);
    // Out of the team, the key may use every model again.
    await admin.patch(`/keys/${key.id}`, { team_id: null });
    expect((await answeredChat(key.secret, 'beta-v4-pro-0813')).status).toBe(200);
  });

  it("the team's token budget caps its keys' tokens together", async () => {
    const team = (
      await admin.post('/teams', {
        name: unique('tokens'),
        token_budget: 50,
        budget_period: 'total',
      })
    ).body;
    const a = await memberKey(team.id);
    const b = await memberKey(team.id);
    const statuses = [(await answeredChat(a.secret)).status, (await answeredChat(b.secret)).status];
    const refused = await answeredChat(a.secret);
    expect(statuses).toEqual([200, 200]);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('budget_exceeded');
    expect(refused.body.error.message).toMatch(
      /token budget of this API key's team has 10 of 50 tokens left in total/,
    );
  });
});
