import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ADMIN_KEY, adminApi } from './support/admin';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Without DATABASE_URL the gateway runs on the embedded PGlite: the partitioned usage table,
 * its maintenance and the key lifecycle must work there too (only cross-process LISTEN does not).
 */
describe('embedded database (PGlite)', () => {
  let gateway: TestApp;

  beforeAll(async () => {
    gateway = await startTestApp({
      env: {
        DATABASE_URL: '',
        GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'gateway-embedded-')),
        ADMIN_API_KEY: ADMIN_KEY,
        ADMIN_RATE_LIMIT: '1000',
        KEY_CACHE_TTL_MS: '60000',
        USAGE_FLUSH_INTERVAL_MS: '20',
      },
    });
  }, 60_000);
  afterAll(() => gateway.close());

  it('manages keys, applies revocation at once and records usage', async () => {
    const admin = adminApi(gateway.url);
    const created = await admin.post('/keys', { name: 'embedded' });
    expect(created.status).toBe(201);
    const send = () =>
      request(gateway.url)
        .post('/v1/chat/completions')
        .set('Authorization', `Bearer ${created.body.secret}`)
        .send({ model: 'alpha-k3', messages: [{ role: 'user', content: 'hi' }] });
    expect((await send()).status).toBe(200);
    await eventually(async () => expect((await admin.get(`/usage?key_id=${created.body.id}`)).body.data[0]?.requests).toBe(1), 3_000);

    const rotated = await admin.post(`/keys/${created.body.id}/rotate`, { grace_seconds: 0 });
    expect(rotated.status).toBe(200);
    expect((await send()).body.error.code).toBe('invalid_api_key'); // grace 0: the old secret is gone
    await admin.post(`/keys/${created.body.id}/revoke`);
    const refused = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${rotated.body.secret}`)
      .send({ model: 'alpha-k3', messages: [{ role: 'user', content: 'hi' }] });
    expect(refused.body.error.code).toBe('key_revoked');
  });
});
