import request from 'supertest';
import { VirtualKeyService } from '../src/keys/virtual-key.service';
import { ADMIN_KEY, adminApi } from './support/admin';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';
import { chat, chatBody } from './support/chat';

describe('admin API: authentication', () => {
  let gateway: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp({ env: { ADMIN_API_KEY: ADMIN_KEY } });
  });
  afterAll(() => gateway.close());

  it.each([
    ['no Authorization header', undefined],
    ['a wrong admin key', `Bearer ${ADMIN_KEY}x`],
    ['a prefix of the admin key', `Bearer ${ADMIN_KEY.slice(0, 20)}`],
    ['another scheme', `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString('base64')}`],
  ])('401 invalid_admin_key with %s', async (_case, authorization) => {
    let call = request(gateway.url).get('/admin/keys');
    if (authorization) call = call.set('Authorization', authorization);
    const response = await call;
    expect(response.status).toBe(401);
    expect(response.body.error).toMatchObject({
      code: 'invalid_admin_key',
      type: 'invalid_request_error',
    });
  });

  it('refuses a virtual key on the admin API, and the admin key on /v1', async () => {
    const virtualKey = await gateway.createKey();
    const admin = await request(gateway.url)
      .get('/admin/keys')
      .set('Authorization', `Bearer ${virtualKey}`);
    expect(admin.status).toBe(401);
    expect(admin.body.error.code).toBe('invalid_admin_key');
    const v1 = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${ADMIN_KEY}`)
      .send(chatBody());
    expect(v1.status).toBe(401);
    expect(v1.body.error.code).toBe('invalid_api_key');
  });

  it('does not exist without ADMIN_API_KEY', async () => {
    const off = await startTestApp();
    try {
      const response = await request(off.url)
        .get('/admin/keys')
        .set('Authorization', `Bearer ${ADMIN_KEY}`);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    } finally {
      await off.close();
    }
  });
});

describe('admin API: keys', () => {
  let gateway: TestApp;
  let admin: ReturnType<typeof adminApi>;
  const unique = (name: string) => `${name}-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, KEY_CACHE_TTL_MS: '60000' },
    });
    admin = adminApi(gateway.url);
  });
  afterAll(() => gateway.close());

  const callWith = (secret: string, model = 'alpha-k3') => chat(gateway, secret, { model });

  it('creates a key, shows its secret once, and the secret works', async () => {
    const name = unique('created');
    const created = await admin.post('/keys', {
      name,
      rpm_limit: 60,
      tpm_limit: 10_000,
      token_budget: 50_000,
      budget_period: 'month',
      allowed_models: ['alpha-k3'],
      expires_at: '2099-01-01T00:00:00Z',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'virtual_key',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name,
      key_prefix: created.body.secret.slice(0, 10),
      status: 'active',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      expires_at: '2099-01-01T00:00:00.000Z',
      revoked_at: null,
      rpm_limit: 60,
      tpm_limit: 10_000,
      token_budget: 50_000,
      budget_usd: null,
      budget_period: 'month',
      team_id: null,
      allowed_models: ['alpha-k3'],
      previous_secret_expires_at: null,
      // Created with the admin key: nobody owns it (docs/sso.md, "Roles").
      owner_user_id: null,
      secret: expect.stringMatching(/^gk-[A-Za-z0-9_-]{43}$/),
    });
    expect((await callWith(created.body.secret)).status).toBe(200);

    const shown = await admin.get(`/keys/${created.body.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).not.toHaveProperty('secret');
    // No hash of any kind leaves the admin API.
    expect(JSON.stringify(shown.body)).not.toMatch(/[0-9a-f]{64}/);
    expect((await admin.get(`/keys/${encodeURIComponent(name)}`)).body.id).toBe(created.body.id);

    const list = await admin.get('/keys');
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    const listed = list.body.data.find((key: { id: string }) => key.id === created.body.id);
    expect(listed).toEqual(shown.body);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    expect(JSON.stringify(list.body)).not.toMatch(/[0-9a-f]{64}/);
  });

  it.each([
    ['no name', { name: undefined }, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['rpm_limit -1', { rpm_limit: -1 }, 'rpm_limit'],
    ['a fractional tpm_limit', { tpm_limit: 1.5 }, 'tpm_limit'],
    ['an unknown budget period', { token_budget: 10, budget_period: 'week' }, 'budget_period'],
    ['a budget without a period', { token_budget: 10 }, 'budget_period'],
    ['a period without a budget', { budget_period: 'day' }, 'token_budget'],
    ['a date that is not ISO 8601', { expires_at: 'next tuesday' }, 'expires_at'],
    ['allowed_models that is not a list', { allowed_models: 'alpha-k3' }, 'allowed_models'],
    ['an unknown model', { allowed_models: ['alpha-k3', 'gamma-x'] }, 'allowed_models'],
  ])('400 invalid_parameter for %s', async (_case, body, param) => {
    const response = await admin.post('/keys', { name: unique('invalid'), ...body });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('409 key_name_taken for a duplicate name, on create and on rename', async () => {
    const name = unique('dupe');
    expect((await admin.post('/keys', { name })).status).toBe(201);
    const again = await admin.post('/keys', { name });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'key_name_taken', param: 'name' });
    const other = await admin.post('/keys', { name: unique('other') });
    const rename = await admin.patch(`/keys/${other.body.id}`, { name });
    expect(rename.status).toBe(409);
    expect(rename.body.error.code).toBe('key_name_taken');
  });

  it('404 key_not_found for an unknown id or name, on every key route', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const response of [
      await admin.get(`/keys/${id}`),
      await admin.get('/keys/no-such-key'),
      await admin.patch(`/keys/${id}`, { rpm_limit: 5 }),
      await admin.post(`/keys/${id}/revoke`),
      await admin.post(`/keys/${id}/rotate`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('key_not_found');
    }
  });

  it('updates only the given fields; null clears a field; the change applies at once despite the cache', async () => {
    const created = await admin.post('/keys', {
      name: unique('patch'),
      rpm_limit: 10,
      expires_at: '2099-01-01T00:00:00Z',
    });
    const secret = created.body.secret;
    expect((await callWith(secret, 'beta-v4-flash-0731')).status).toBe(200); // cached now, all models allowed

    const patched = await admin.patch(`/keys/${created.body.id}`, {
      allowed_models: ['alpha-k3'],
      expires_at: null,
      tpm_limit: 500,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      rpm_limit: 10,
      tpm_limit: 500,
      expires_at: null,
      allowed_models: ['alpha-k3'],
      name: created.body.name,
    });
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(
      Date.parse(created.body.updated_at),
    );

    const refused = await callWith(secret, 'beta-v4-flash-0731');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'model_not_allowed',
      type: 'permission_error',
      param: 'model',
    });
    expect((await callWith(secret, 'alpha-k3')).status).toBe(200);

    const cleared = await admin.patch(`/keys/${created.body.id}`, {
      allowed_models: null,
      rpm_limit: null,
    });
    expect(cleared.body).toMatchObject({ allowed_models: [], rpm_limit: null, tpm_limit: 500 });
    expect((await callWith(secret, 'beta-v4-flash-0731')).status).toBe(200);
  });

  it('revokes: the key is refused at once, revoking again changes nothing, a revoked key cannot be rotated', async () => {
    const created = await admin.post('/keys', { name: unique('revoke') });
    expect((await callWith(created.body.secret)).status).toBe(200);
    const revoked = await admin.post(`/keys/${created.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
    const refused = await callWith(created.body.secret);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('key_revoked');
    const again = await admin.post(`/keys/${created.body.id}/revoke`);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    const rotate = await admin.post(`/keys/${created.body.id}/rotate`);
    expect(rotate.status).toBe(409);
    expect(rotate.body.error.code).toBe('key_already_revoked');
  });

  it('400 for a grace period out of range', async () => {
    const created = await admin.post('/keys', { name: unique('grace') });
    for (const grace_seconds of [-1, 1.5, 31 * 24 * 3600]) {
      const response = await admin.post(`/keys/${created.body.id}/rotate`, { grace_seconds });
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe('grace_seconds');
    }
  });
});

describe('admin API: usage', () => {
  let gateway: TestApp;
  let admin: ReturnType<typeof adminApi>;
  let first: { id: string; secret: string };
  let second: { id: string; secret: string };
  const started = new Date().toISOString();

  beforeAll(async () => {
    gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, USAGE_FLUSH_INTERVAL_MS: '20' },
    });
    admin = adminApi(gateway.url);
    const create = async (name: string) => {
      const response = await admin.post('/keys', { name: `${name}-${process.pid}-${Date.now()}` });
      return { id: response.body.id, secret: response.body.secret };
    };
    first = await create('usage-a');
    second = await create('usage-b');
    const send = (secret: string, model: string) => chat(gateway, secret, { model }).expect(200);
    await send(first.secret, 'alpha-k3');
    await send(first.secret, 'alpha-k3');
    await send(first.secret, 'beta-v4-flash-0731');
    await send(second.secret, 'beta-v4-flash-0731');
  });
  afterAll(() => gateway.close());

  const report = (query: string) => admin.get(`/usage?${query}`);

  it('reports per key, with the key names', async () => {
    await eventually(async () => {
      const response = await report(`key_id=${first.id}`);
      expect(response.body.data[0]?.requests).toBe(3);
    }, 3_000);
    const response = await report(`key_id=${first.id}&group_by=key`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      object: 'usage_report',
      group_by: 'key',
      key_id: first.id,
      model: null,
    });
    expect(response.body.data).toHaveLength(1);
    const [row] = response.body.data;
    expect(row).toEqual({
      key_id: first.id,
      key_name: expect.stringMatching(/^usage-a-/),
      requests: 3,
      completed: 3,
      failed: 0,
      aborted: 0,
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: row.prompt_tokens + row.completion_tokens,
      avg_latency_ms: expect.any(Number),
    });
    expect(row.prompt_tokens).toBeGreaterThan(0);
    expect(row.completion_tokens).toBeGreaterThan(0);
  });

  it('reports per model, filtered by key or by model', async () => {
    await eventually(
      async () => expect((await report(`key_id=${second.id}`)).body.data[0]?.requests).toBe(1),
      3_000,
    );
    const byModel = await report(`key_id=${first.id}&group_by=model`);
    expect(
      byModel.body.data.map((row: { model: string; requests: number }) => [
        row.model,
        row.requests,
      ]),
    ).toEqual([
      ['alpha-k3', 2],
      ['beta-v4-flash-0731', 1],
    ]);
    const oneModel = await report(
      `model=beta-v4-flash-0731&group_by=key&from=${encodeURIComponent(started)}`,
    );
    const keys = oneModel.body.data.filter((row: { key_id: string }) =>
      [first.id, second.id].includes(row.key_id),
    );
    expect(
      keys.map((row: { key_id: string; requests: number }) => [row.key_id, row.requests]).sort(),
    ).toEqual(
      [
        [first.id, 1],
        [second.id, 1],
      ].sort(),
    );
  });

  it('filters by time: from is inclusive, to exclusive', async () => {
    await eventually(
      async () => expect((await report(`key_id=${first.id}`)).body.data[0]?.requests).toBe(3),
      3_000,
    );
    expect(
      (await report(`key_id=${first.id}&to=${encodeURIComponent(started)}`)).body.data,
    ).toEqual([]);
    expect((await report(`key_id=${first.id}&from=2999-01-01T00:00:00Z`)).body.data).toEqual([]);
    const window = await report(
      `key_id=${first.id}&from=${encodeURIComponent(started)}&to=2999-01-01T00:00:00Z`,
    );
    expect(window.body.data[0].requests).toBe(3);
  });

  it('key updates and seeds leave the usage alone', async () => {
    await eventually(
      async () => expect((await report(`key_id=${first.id}`)).body.data[0]?.requests).toBe(3),
      3_000,
    );
    const before = (await report(`key_id=${first.id}`)).body.data;
    await admin.patch(`/keys/${first.id}`, { rpm_limit: 7, allowed_models: ['alpha-k3'] });
    const name = (await admin.get(`/keys/${first.id}`)).body.name;
    await gateway.app.get(VirtualKeyService).seed({ name, secret: first.secret, rpmLimit: 9 });
    expect((await report(`key_id=${first.id}`)).body.data).toEqual(before);
  });

  it.each([
    ['key_id=not-a-uuid', 'key_id'],
    ['group_by=day', 'group_by'],
    ['from=yesterday', 'from'],
  ])('400 for %s', async (query, param) => {
    const response = await report(query);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_parameter', param });
  });
});

describe('admin API: body size and rate limits', () => {
  it('413 for a JSON body over 100 KiB, while a body just under it is parsed', async () => {
    const gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY },
    });
    try {
      const admin = adminApi(gateway.url);
      const over = await admin.post('/keys', { name: 'x'.repeat(100 * 1024) });
      expect(over.status).toBe(413);
      expect(over.body.error.code).toBe('request_too_large');
      // Parsed, then refused by validation: the name is longer than 200 characters.
      const under = await admin.post('/keys', { name: 'x'.repeat(100 * 1024 - 20) });
      expect(under.status).toBe(400);
      expect(under.body.error.param).toBe('name');
    } finally {
      await gateway.close();
    }
  });

  it('400 naming the field for a body too deep or too wide, never a 500', async () => {
    const gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY },
    });
    try {
      const admin = adminApi(gateway.url);
      const levels = 2000;
      const deep = await request(gateway.url)
        .post('/admin/keys')
        .set('Authorization', `Bearer ${ADMIN_KEY}`)
        .set('Content-Type', 'application/json')
        .send(`{"name":"deep","allowed_models":${'['.repeat(levels)}${']'.repeat(levels)}}`);
      expect(deep.status).toBe(400);
      expect(deep.body.error).toMatchObject({
        code: 'invalid_parameter',
        param: `allowed_models${'[0]'.repeat(63)}`,
      });
      const wide = await admin.post('/keys', {
        name: 'wide',
        x: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])),
      });
      expect(wide.status).toBe(400);
      expect(wide.body.error).toMatchObject({ code: 'invalid_parameter', param: 'x' });
      expect(wide.body.error.message).toContain('has more than 1000 keys');
    } finally {
      await gateway.close();
    }
  });
});
