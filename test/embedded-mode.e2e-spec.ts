import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { DatabaseConnection } from '../src/database/database-connection';
import { EMBEDDED_SETTINGS, EmbeddedPostgres } from '../src/database/embedded-postgres';
import { ADMIN_KEY, adminApi } from './support/admin';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';
import { chat } from './support/chat';

/**
 * Without DATABASE_URL the gateway runs on the embedded PGlite: the partitioned usage table,
 * its maintenance and the key lifecycle must work there too (only cross-process LISTEN does not).
 */
describe('embedded database (PGlite)', () => {
  let gateway: TestApp;
  // A parent any local user may enter, so only the gateway's own modes keep them out.
  const parent = mkdtempSync(join(tmpdir(), 'gateway-embedded-'));
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'data');

  beforeAll(async () => {
    gateway = await startTestApp({
      env: {
        DATABASE_URL: '',
        GATEWAY_DATA_DIR: dataDir,
        ADMIN_API_KEY: ADMIN_KEY,
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
    const send = () => chat(gateway, created.body.secret);
    expect((await send()).status).toBe(200);
    await eventually(
      async () =>
        expect((await admin.get(`/usage?key_id=${created.body.id}`)).body.data[0]?.requests).toBe(
          1,
        ),
      3_000,
    );

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

  it('listens on a Unix socket in a 0700 folder, not on a TCP port', async () => {
    const { url } = gateway.app.get<DatabaseConnection>(DatabaseConnection);
    const parsed = new URL(url);
    const socketDir = parsed.searchParams.get('host')!;
    expect(parsed.port).toBe('');
    expect(socketDir).toBe(join(dataDir, 'socket'));
    expect(statSync(socketDir).mode & 0o777).toBe(0o700);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(socketDir, '.s.PGSQL.5432')).isSocket()).toBe(true);
    expect(JSON.parse(readFileSync(join(dataDir, 'embedded-server.json'), 'utf8')).url).toBe(url);

    const client = new Client({ connectionString: url });
    await client.connect();
    expect(
      (await client.query('SELECT count(*)::int AS n FROM virtual_keys')).rows[0].n,
    ).toBeGreaterThanOrEqual(0);
    await client.end();
  });

  it("runs with the embedded settings, whatever the data folder's postgresql.conf says", async () => {
    // From source there is no template: initdb wrote postgresql.conf with its own 128MB, as in
    // data folders made by older versions; the settings given at start must win there too.
    expect(readFileSync(join(dataDir, 'pgdata', 'postgresql.conf'), 'utf8')).toMatch(
      /^shared_buffers = 128MB/m,
    );
    const client = new Client({
      connectionString: gateway.app.get<DatabaseConnection>(DatabaseConnection).url,
    });
    await client.connect();
    try {
      for (const [name, value] of Object.entries(EMBEDDED_SETTINGS))
        expect((await client.query(`SHOW ${name}`)).rows[0][name]).toBe(value);
      expect((await client.query('SHOW shared_buffers')).rows[0].shared_buffers).toBe('2MB');
    } finally {
      await client.end();
    }
  });

  (process.getuid?.() === 0 ? it : it.skip)('refuses another local user at the file system', () => {
    const socket = join(dataDir, 'socket', '.s.PGSQL.5432');
    const probe = `require('net').connect(${JSON.stringify(socket)}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(0); })`;
    const output = execFileSync(process.execPath, ['-e', probe], {
      uid: 65534,
      gid: 65534,
      encoding: 'utf8',
    }).trim();
    expect(output).toBe('EACCES');
  });
});

describe('embedded database in a data folder too deep for a socket path', () => {
  it('puts the socket in a private temp folder, removes it on stop, and closes an existing data folder to others', async () => {
    const deep = join(
      mkdtempSync(join(tmpdir(), 'gateway-embedded-')),
      'a-rather-long-folder-name'.repeat(4),
    );
    mkdirSync(deep, { mode: 0o755 }); // as an older version left it
    const embedded = await EmbeddedPostgres.start(deep);
    expect(statSync(deep).mode & 0o777).toBe(0o700);
    const socketDir = new URL(embedded.url).searchParams.get('host')!;
    try {
      expect(socketDir.startsWith(join(tmpdir(), 'gateway-pg-'))).toBe(true);
      expect(statSync(socketDir).mode & 0o777).toBe(0o700);
      const client = new Client({ connectionString: embedded.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows[0].one).toBe(1);
      await client.end();
    } finally {
      await embedded.stop();
    }
    expect(existsSync(socketDir)).toBe(false);
  }, 60_000);
});
