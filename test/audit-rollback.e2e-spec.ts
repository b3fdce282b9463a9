import { NestFactory } from '@nestjs/core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { CliModule } from '../src/cli/cli.module';
import { loadAppConfig } from '../src/config/app-config';
import { GatewayConfigService } from '../src/config/gateway-config.service';
import { createKey } from '../src/cli/commands';
import { adminApi, ADMIN_KEY } from './support/admin';
import { chat } from './support/chat';
import { buildDashboard, dashboardSignIn } from './support/dashboard';
import { createDatabase, ScratchDatabase } from './support/databases';
import { eventually } from './support/eventually';
import { TestOidcProvider } from './support/oidc-provider';
import { oidcEnv, ssoSignIn } from './support/sso';
import { startTestApp, TestApp } from './support/test-app';

// Sign-ins through the provider and gateway starts take seconds on a busy machine.
jest.setTimeout(30_000);

/**
 * The audit row is written in the transaction of the change it records: when the row cannot be
 * written, the change does not happen. A trigger of this suite's own database makes every audit
 * insert fail while `audit_sabotage` has a row.
 */
describe('audit log: a change whose audit row fails is rolled back', () => {
  let database: ScratchDatabase;
  let db: Client;
  let gateway: TestApp;
  let provider: TestOidcProvider;
  let dir: string;
  let configFile: string;
  const admin = () => adminApi(gateway.url);
  const sabotage = (on: boolean) =>
    db.query(on ? 'INSERT INTO audit_sabotage VALUES (true)' : 'DELETE FROM audit_sabotage');
  const failsInternally = (response: request.Response) => {
    expect(response.status).toBe(500);
    expect(response.body.error.code).toBe('internal_error');
  };
  const ask = (secret: string) => chat(gateway, secret);

  beforeAll(async () => {
    buildDashboard();
    database = await createDatabase('gateway_audit_rollback');
    db = new Client({ connectionString: database.url });
    await db.connect();
    await db.query(`
      CREATE TABLE audit_sabotage (on_ boolean);
      CREATE FUNCTION audit_sabotage() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM audit_sabotage) THEN RAISE EXCEPTION 'audit storage is broken'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER audit_sabotage BEFORE INSERT ON audit_log
        FOR EACH ROW EXECUTE FUNCTION audit_sabotage();`);
    dir = mkdtempSync(join(tmpdir(), 'gateway-audit-rollback-'));
    configFile = join(dir, 'gateway.yaml');
    writeFileSync(configFile, JSON.stringify({ models: { 'alpha-k3': [{ provider: 'mock' }] } }));
    provider = await TestOidcProvider.start({
      alice: { email: 'alice@example.com', name: 'Alice', groups: ['admins'] },
    });
    gateway = await startTestApp({
      env: {
        DATABASE_URL: database.url,
        ADMIN_API_KEY: ADMIN_KEY,
        GATEWAY_CONFIG: configFile,
        KEY_CACHE_TTL_MS: '0',
        ...oidcEnv(provider, { admins: 'admin' }),
      },
    });
    provider.allowGateway(gateway.url);
  });
  afterEach(() => sabotage(false));
  afterAll(async () => {
    await gateway?.close();
    await provider?.close();
    await db?.end();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rolls back key creation, budget changes, rotation and revocation', async () => {
    const kept = await admin().post('/keys', { name: 'kept', rpm_limit: 10 });
    expect(kept.status).toBe(201);
    await sabotage(true);

    failsInternally(await admin().post('/keys', { name: 'never-created' }));
    failsInternally(
      await admin().patch('/keys/kept', { budget_usd: '5', budget_period: 'day', rpm_limit: 99 }),
    );
    failsInternally(await admin().post('/keys/kept/rotate', { grace_seconds: 0 }));
    failsInternally(await admin().post('/keys/kept/revoke'));

    const { rows } = await db.query('SELECT * FROM virtual_keys ORDER BY name');
    expect(rows.map((row) => row.name)).toEqual(['kept']);
    expect(rows[0]).toMatchObject({
      rpm_limit: 10,
      budget_usd: null,
      revoked_at: null,
      key_prefix: kept.body.key_prefix,
    });
    // The original secret still works: neither the rotation nor the revocation happened.
    expect((await ask(kept.body.secret)).status).toBe(200);
    await sabotage(false);
    expect((await admin().post('/keys/kept/revoke')).status).toBe(200);
    expect((await ask(kept.body.secret)).status).toBe(401);
  });

  it('rolls back team changes and config reloads', async () => {
    const team = await admin().post('/teams', { name: 'crew' });
    await sabotage(true);
    failsInternally(await admin().post('/teams', { name: 'ghost' }));
    failsInternally(await admin().patch('/teams/crew', { budget_usd: '1', budget_period: 'day' }));
    failsInternally(await admin().delete('/teams/crew'));
    const { rows } = await db.query('SELECT name, budget_usd FROM teams ORDER BY name');
    expect(rows).toEqual([{ name: 'crew', budget_usd: null }]);
    expect(team.status).toBe(201);

    writeFileSync(
      configFile,
      JSON.stringify({
        models: { 'alpha-k3': [{ provider: 'mock' }], 'beta-v4': [{ provider: 'mock' }] },
      }),
    );
    failsInternally(await admin().post('/config/reload'));
    expect(gateway.app.get(GatewayConfigService).publicModels()).toEqual(['alpha-k3']);
    await sabotage(false);
    expect((await admin().post('/config/reload')).body.models).toEqual(['alpha-k3', 'beta-v4']);
  });

  it('refuses a sign-in whose audit row cannot be written: no session', async () => {
    await sabotage(true);
    const typed = await request(gateway.url)
      .post('/dashboard/api/session')
      .send({ admin_key: ADMIN_KEY });
    failsInternally(typed);
    expect(typed.headers['set-cookie']).toBeUndefined();
    const sso = await ssoSignIn(gateway.url, provider, 'alice');
    expect(sso).toMatchObject({ location: '/dashboard?sign_in_error=unavailable', cookie: null });
    const { rows } = await db.query('SELECT count(*)::int AS n FROM admin_users');
    expect(rows[0].n).toBe(0);
    await sabotage(false);
    expect((await dashboardSignIn(gateway.url)).csrf).toEqual(expect.any(String));
  });

  it('rolls back a CLI change too', async () => {
    const cli = await NestFactory.createApplicationContext(
      CliModule.forCommand(loadAppConfig({ ...process.env, DATABASE_URL: database.url }), {
        allowUnmigrated: false,
      }),
      { logger: false },
    );
    try {
      await sabotage(true);
      await expect(
        createKey(cli, { name: 'cli-never', json: true }, { out: () => undefined }),
      ).rejects.toThrow(/audit storage is broken/);
    } finally {
      await cli.close();
    }
    const { rows } = await db.query(`SELECT 1 FROM virtual_keys WHERE name = 'cli-never'`);
    expect(rows).toEqual([]);
  });
});

describe('audit log: AUDIT_RETENTION_DAYS', () => {
  let database: ScratchDatabase;
  let db: Client;

  beforeAll(async () => {
    database = await createDatabase('gateway_audit_retention');
    db = new Client({ connectionString: database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await database?.drop();
  });

  const ages = async () =>
    (
      await db.query(
        `SELECT round(extract(epoch FROM now() - created_at) / 86400)::int AS days FROM audit_log ORDER BY days`,
      )
    ).rows.map((row) => row.days);

  it('deletes rows older than the retention at start-up (365 days by default); 0 keeps them all', async () => {
    for (const days of [400, 366, 364, 1])
      await db.query(
        `INSERT INTO audit_log (created_at, actor_type, action) VALUES (now() - make_interval(days => $1), 'system', 'key.create')`,
        [days],
      );
    const keepAll = await startTestApp({
      env: { DATABASE_URL: database.url, AUDIT_RETENTION_DAYS: '0' },
    });
    await keepAll.close();
    expect(await ages()).toEqual([1, 364, 366, 400]);

    const byDefault = await startTestApp({ env: { DATABASE_URL: database.url } });
    try {
      await eventually(async () => expect(await ages()).toEqual([1, 364]), 5_000, 50);
    } finally {
      await byDefault.close();
    }
    const shorter = await startTestApp({
      env: { DATABASE_URL: database.url, AUDIT_RETENTION_DAYS: '30' },
    });
    try {
      await eventually(async () => expect(await ages()).toEqual([1]), 5_000, 50);
    } finally {
      await shorter.close();
    }
  });
});
