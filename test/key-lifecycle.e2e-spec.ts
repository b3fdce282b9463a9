import OpenAI from 'openai';
import { Client } from 'pg';
import { listenerName } from '../src/auth/key-change-listener.service';
import { ADMIN_KEY, adminApi } from './support/admin';
import { eventually, sleep } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';
import { chat, chatBody } from './support/chat';

// A cache that would hide any change for a minute: whatever is seen sooner came from a notification.
const LONG_CACHE = {
  ADMIN_API_KEY: ADMIN_KEY,
  KEY_CACHE_TTL_MS: '60000',
};
const unique = (name: string) => `${name}-${process.pid}-${Date.now()}`;

describe('key lifecycle across two gateway instances', () => {
  let one: TestApp;
  let two: TestApp;

  beforeAll(async () => {
    [one, two] = await Promise.all([
      startTestApp({ env: LONG_CACHE }),
      startTestApp({ env: LONG_CACHE }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([one.close(), two.close()]);
  });

  const callWith = (gateway: TestApp, secret: string, model = 'alpha-k3') =>
    chat(gateway, secret, { model });

  it('a key revoked through one instance is refused by the other within a second', async () => {
    const created = await adminApi(one.url).post('/keys', { name: unique('revoked-everywhere') });
    expect((await callWith(two, created.body.secret)).status).toBe(200); // now cached by instance two
    expect((await callWith(two, created.body.secret)).status).toBe(200);

    const revokedAt = Date.now();
    expect((await adminApi(one.url).post(`/keys/${created.body.id}/revoke`)).status).toBe(200);
    const elapsed = await eventually(async () => {
      const response = await callWith(two, created.body.secret);
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('key_revoked');
    }, 1_000);
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    expect(elapsed).toBeLessThan(1_000);
  });

  it('a rotation through one instance applies on the other: new secret works, old one only during its grace', async () => {
    const created = await adminApi(one.url).post('/keys', { name: unique('rotated') });
    const oldSecret = created.body.secret;
    expect((await callWith(two, oldSecret)).status).toBe(200);

    const rotated = await adminApi(one.url).post(`/keys/${created.body.id}/rotate`, {
      grace_seconds: 3,
    });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret;
    expect(newSecret).toMatch(/^gk-/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body).toMatchObject({
      id: created.body.id,
      key_prefix: newSecret.slice(0, 10),
      status: 'active',
    });
    const graceEnds = Date.parse(rotated.body.previous_secret_expires_at);
    expect(graceEnds - Date.now()).toBeGreaterThan(1_500);
    expect(graceEnds - Date.now()).toBeLessThanOrEqual(3_000);

    for (const gateway of [one, two]) {
      expect((await callWith(gateway, newSecret)).status).toBe(200);
      expect((await callWith(gateway, oldSecret)).status).toBe(200);
    }
    await sleep(graceEnds - Date.now() + 50);
    for (const gateway of [one, two]) {
      const refused = await callWith(gateway, oldSecret);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('key_rotated');
      expect((await callWith(gateway, newSecret)).status).toBe(200);
    }
  });

  it('rotating again ends the grace of the earlier secret at once; grace 0 ends it at once', async () => {
    const created = await adminApi(one.url).post('/keys', { name: unique('rotated-twice') });
    const first = created.body.secret;
    const second = (
      await adminApi(one.url).post(`/keys/${created.body.id}/rotate`, { grace_seconds: 600 })
    ).body.secret;
    expect((await callWith(two, first)).status).toBe(200);
    const third = (
      await adminApi(one.url).post(`/keys/${created.body.id}/rotate`, { grace_seconds: 600 })
    ).body.secret;
    await eventually(
      async () => expect((await callWith(two, first)).body.error?.code).toBe('invalid_api_key'),
      1_000,
    );
    expect((await callWith(two, second)).status).toBe(200);
    expect((await callWith(two, third)).status).toBe(200);

    const rotated = await adminApi(one.url).post(`/keys/${created.body.id}/rotate`, {
      grace_seconds: 0,
    });
    expect(rotated.body.previous_secret_expires_at).toBeNull();
    await eventually(async () => expect((await callWith(two, third)).status).toBe(401), 1_000);
    expect((await callWith(two, rotated.body.secret)).status).toBe(200);
  });

  it('an expired key is refused, even from the cache, the moment it expires', async () => {
    const expiresAt = new Date(Date.now() + 1_500);
    const created = await adminApi(one.url).post('/keys', {
      name: unique('expiring'),
      expires_at: expiresAt.toISOString(),
    });
    expect((await callWith(two, created.body.secret)).status).toBe(200);
    await sleep(expiresAt.getTime() - Date.now() + 20);
    const refused = await callWith(two, created.body.secret);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('key_expired');
    expect((await adminApi(one.url).get(`/keys/${created.body.id}`)).body.status).toBe('expired');

    // Extending the expiry brings it back, on the other instance too.
    await adminApi(one.url).patch(`/keys/${created.body.id}`, { expires_at: null });
    await eventually(
      async () => expect((await callWith(two, created.body.secret)).status).toBe(200),
      1_000,
    );
  });

  it('a key limited to some models gets 403 model_not_allowed for the others, as the openai client expects', async () => {
    const created = await adminApi(one.url).post('/keys', {
      name: unique('allowed'),
      allowed_models: ['alpha-k3', 'beta-v4-pro-0813'],
    });
    const client = new OpenAI({
      apiKey: created.body.secret,
      baseURL: `${two.url}/v1`,
      maxRetries: 0,
    });
    const ok = await client.chat.completions.create({
      model: 'alpha-k3',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(ok.object).toBe('chat.completion');
    const error = await client.chat.completions
      .create({ model: 'beta-v4-flash-0731', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error).toMatchObject({
      status: 403,
      code: 'model_not_allowed',
      type: 'permission_error',
      param: 'model',
    });
    const streamed = await callWith(two, created.body.secret, 'beta-v4-flash-0731').send({
      ...chatBody('beta-v4-flash-0731'),
      stream: true,
    });
    expect(streamed.status).toBe(403);
    // A model that does not exist stays 404, whatever the key may use.
    expect((await callWith(two, created.body.secret, 'gamma-x')).status).toBe(404);
  });

  it('the listener reconnects after losing its connection, and changes propagate again', async () => {
    const database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
    try {
      // Only this process's listeners, so suites running in parallel are left alone.
      const { rowCount } = await database.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
        [listenerName()],
      );
      expect(rowCount).toBe(2);
      await eventually(async () => {
        const { rows } = await database.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
          [listenerName()],
        );
        expect(rows[0].n).toBe(2);
      }, 3_000);
    } finally {
      await database.end();
    }
    const created = await adminApi(one.url).post('/keys', { name: unique('after-reconnect') });
    expect((await callWith(two, created.body.secret)).status).toBe(200);
    await adminApi(one.url).post(`/keys/${created.body.id}/revoke`);
    await eventually(
      async () => expect((await callWith(two, created.body.secret)).status).toBe(401),
      1_000,
    );
  });
});
