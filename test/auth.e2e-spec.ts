import { createHash } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { VirtualKeyService } from '../src/keys/virtual-key.service';
import { startTestApp, TestApp } from './support/test-app';
import { chat, chatBody } from './support/chat';

const body = chatBody();

describe('virtual keys: Bearer authentication against Postgres', () => {
  let gateway: TestApp;
  let database: Client;

  beforeAll(async () => {
    // A 1 ms cache so state changes are seen at once; the cached path is covered below.
    gateway = await startTestApp({ env: { KEY_CACHE_TTL_MS: '0' } });
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
  });

  afterAll(async () => {
    await database.end();
    await gateway.close();
  });

  const call = (authorization?: string) => {
    const pending = request(gateway.url).post('/v1/chat/completions');
    return (
      authorization === undefined ? pending : pending.set('Authorization', authorization)
    ).send(body);
  };

  it('accepts a valid key, case-insensitive scheme', async () => {
    const key = await gateway.createKey();
    expect((await call(`Bearer ${key}`)).status).toBe(200);
    expect((await call(`bearer ${key}`)).status).toBe(200);
  });

  it.each([
    ['no header', undefined, 'missing_api_key'],
    ['an empty header', '', 'missing_api_key'],
    ['another scheme', 'Basic dXNlcjpwYXNz', 'invalid_api_key'],
    ['Bearer with no token', 'Bearer ', 'invalid_api_key'],
    [
      'two tokens',
      'Bearer gk-aaaaaaaaaaaaaaaaaaaaaaaaa gk-bbbbbbbbbbbbbbbbbbbbbbbb',
      'invalid_api_key',
    ],
    ['a token too short to be a key', 'Bearer abc', 'invalid_api_key'],
    [
      'an unknown well-formed key',
      'Bearer gk-ThisKeyWasNeverIssuedByTheGateway0000000',
      'invalid_api_key',
    ],
  ])('401 for %s', async (_case, authorization, code) => {
    const response = await call(authorization);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.type).toBe('invalid_request_error');
  });

  it('401 key_revoked once a key is revoked', async () => {
    const key = await gateway.createKey({ name: `revoke-me-${Date.now()}` });
    expect((await call(`Bearer ${key}`)).status).toBe(200);
    const keys = gateway.app.get(VirtualKeyService);
    const [row] = (await keys.list()).filter((k) => k.keyPrefix === key.slice(0, 10));
    await keys.revoke(row.id);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await call(`Bearer ${key}`);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('key_revoked');
  });

  it('401 key_expired after the expiry time', async () => {
    const key = await gateway.createKey({ expiresAt: new Date(Date.now() - 1000) });
    const response = await call(`Bearer ${key}`);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('key_expired');
    const valid = await gateway.createKey({ expiresAt: new Date(Date.now() + 60_000) });
    expect((await call(`Bearer ${valid}`)).status).toBe(200);
  });

  it('stores only a SHA-256 of the secret, never the secret', async () => {
    const key = await gateway.createKey({ name: `stored-${Date.now()}` });
    const { rows } = await database.query('SELECT * FROM virtual_keys WHERE key_prefix = $1', [
      key.slice(0, 10),
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0].secret_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(rows[0])).not.toContain(key);
    expect(JSON.stringify(rows[0])).not.toContain(key.slice(10));
  });
});

describe('key lookups are cached', () => {
  it('keeps answering from the cache within the TTL and sees revocation after it', async () => {
    const gateway = await startTestApp({ env: { KEY_CACHE_TTL_MS: '400' } });
    try {
      const key = await gateway.createKey({ name: `cached-${Date.now()}` });
      const send = () => chat(gateway, key);
      expect((await send()).status).toBe(200);
      // Revoke behind the gateway's back, straight in the database.
      const database = new Client({ connectionString: process.env.DATABASE_URL });
      await database.connect();
      await database.query('UPDATE virtual_keys SET revoked_at = now() WHERE key_prefix = $1', [
        key.slice(0, 10),
      ]);
      await database.end();
      expect((await send()).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 450));
      const after = await send();
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe('key_revoked');
    } finally {
      await gateway.close();
    }
  });
});

describe('secrets never reach the logs', () => {
  it('logs neither client keys nor provider keys, even at verbose level', async () => {
    const written: string[] = [];
    const capture = (stream: NodeJS.WriteStream) => {
      const original = stream.write.bind(stream);
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        written.push(String(chunk));
        return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof stream.write;
      return () => (stream.write = original);
    };
    const restoreOut = capture(process.stdout);
    const restoreErr = capture(process.stderr);
    const gateway = await startTestApp({
      env: { LOG_LEVEL: 'verbose' },
      models: {
        'alpha-k3': [
          {
            provider: 'openai',
            base_url: 'http://127.0.0.1:9',
            api_key: 'sk-provider-SECRET-123456',
            model: 'm',
          },
        ],
      },
    });
    try {
      const key = await gateway.createKey();
      await request(gateway.url)
        .post('/v1/chat/completions')
        .set('Authorization', `Bearer ${key}`)
        .send(body);
      await request(gateway.url)
        .post('/v1/chat/completions')
        .set('Authorization', 'Bearer gk-WrongKeyThatSomeoneTyped000000000')
        .send(body);
    } finally {
      await gateway.close();
      restoreOut();
      restoreErr();
    }
    const log = written.join('');
    expect(log).toContain('Completions'); // the request was logged
    expect(log).not.toContain('sk-provider-SECRET');
    expect(log).not.toMatch(/gk-[A-Za-z0-9_-]{20,}/);
  });
});
