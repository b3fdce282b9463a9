import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { CliModule } from '../src/cli/cli.module';
import { loadAppConfig } from '../src/config/app-config';
import { createKey, revokeKey, rotateKey } from '../src/cli/commands';
import { createTeam, deleteTeam, updateKey, updateTeam } from '../src/cli/spend-commands';
import { adminApi, ADMIN_KEY } from './support/admin';
import { queryTestDatabase } from './support/databases';
import { buildDashboard, dashboardSignIn } from './support/dashboard';
import { TestOidcProvider } from './support/oidc-provider';
import { csrfOf, oidcEnv, ssoSignIn } from './support/sso';
import { startTestApp, TestApp } from './support/test-app';

// Sign-ins through the provider and gateway starts take seconds on a busy machine.
jest.setTimeout(30_000);

const run = `${process.pid}-${Date.now()}`;

const query = queryTestDatabase;

const rowsFor = (target: string) =>
  query('SELECT * FROM audit_log WHERE target_name = $1 OR target_id = $1 ORDER BY id', [target]);

describe('audit log: one row per change, with who, what, from where, and no secret', () => {
  let gateway: TestApp;
  let provider: TestOidcProvider;
  let dir: string;
  let configFile: string;
  const secrets: string[] = [];
  const admin = () => adminApi(gateway.url);

  beforeAll(async () => {
    buildDashboard();
    dir = mkdtempSync(join(tmpdir(), 'gateway-audit-'));
    configFile = join(dir, 'gateway.yaml');
    writeFileSync(configFile, JSON.stringify({ models: { 'alpha-k3': [{ provider: 'mock' }] } }));
    provider = await TestOidcProvider.start({
      alice: { email: 'Alice@Example.com', name: 'Alice', groups: ['admins'] },
      victor: { email: 'victor@example.com', name: 'Victor', groups: ['auditors'] },
    });
    gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        GATEWAY_CONFIG: configFile,
        ...oidcEnv(provider, { admins: 'admin', auditors: 'viewer' }),
      },
    });
    provider.allowGateway(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await provider?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the admin API’s key, team, budget and config changes', async () => {
    const team = await admin().post('/teams', { name: `team-${run}` });
    await admin().patch(`/teams/${team.body.id}`, { budget_usd: '100', budget_period: 'month' });
    const created = await admin()
      .post('/keys', { name: `key-${run}`, team_id: team.body.id })
      .set('x-request-id', `req-audit-${run}`);
    expect(created.status).toBe(201);
    secrets.push(created.body.secret);
    await admin().patch(`/keys/${created.body.id}`, { budget_usd: '25.5', budget_period: 'day' });
    const rotated = await admin().post(`/keys/${created.body.id}/rotate`, { grace_seconds: 60 });
    secrets.push(rotated.body.secret);
    await admin().post(`/keys/${created.body.id}/revoke`);
    await admin().delete(`/teams/${team.body.id}`);
    writeFileSync(
      configFile,
      JSON.stringify({
        models: { 'alpha-k3': [{ provider: 'mock' }], 'beta-v4': [{ provider: 'mock' }] },
      }),
    );
    expect((await admin().post('/config/reload')).status).toBe(200);

    const keyRows = await rowsFor(created.body.id);
    expect(keyRows.map((row) => row.action)).toEqual([
      'key.create',
      'key.update',
      'key.rotate',
      'key.revoke',
    ]);
    for (const row of keyRows)
      expect(row).toMatchObject({
        actor_type: 'admin_key',
        actor_id: null,
        target_type: 'key',
        target_name: `key-${run}`,
        source_ip: expect.stringMatching(/127\.0\.0\.1/),
        request_id: expect.stringMatching(/^req/),
      });
    expect(keyRows[0]).toMatchObject({
      request_id: `req-audit-${run}`,
      before: null,
      after: expect.objectContaining({
        name: `key-${run}`,
        team_id: team.body.id,
        status: 'active',
      }),
    });
    // A budget change: exactly the fields that changed, before and after.
    expect(keyRows[1]).toMatchObject({
      before: { budget_usd: null, budget_period: null },
      after: { budget_usd: '25.5', budget_period: 'day' },
    });
    expect(keyRows[2].before.key_prefix).toBe(created.body.key_prefix);
    expect(keyRows[2].after.key_prefix).toBe(rotated.body.key_prefix);
    expect(keyRows[3]).toMatchObject({
      before: { status: 'active', revoked_at: null },
      after: { status: 'revoked', revoked_at: expect.any(String) },
    });

    const teamRows = await rowsFor(team.body.id);
    expect(teamRows.map((row) => [row.action, row.before, row.after])).toEqual([
      ['team.create', null, expect.objectContaining({ name: `team-${run}`, budget_usd: null })],
      [
        'team.update',
        { budget_usd: null, budget_period: null },
        { budget_usd: '100', budget_period: 'month' },
      ],
      ['team.delete', expect.objectContaining({ budget_usd: '100' }), null],
    ]);

    const [reload] = await query(
      `SELECT * FROM audit_log WHERE action = 'config.reload' AND target_name = $1`,
      [configFile],
    );
    expect(reload).toMatchObject({
      actor_type: 'admin_key',
      target_type: 'config',
      before: { models: ['alpha-k3'] },
      after: { models: ['alpha-k3', 'beta-v4'] },
    });
  });

  it('records dashboard changes and sign-ins with the signed-in person as the actor', async () => {
    const sso = await ssoSignIn(gateway.url, provider, 'alice');
    const csrf = await csrfOf(gateway.url, sso.cookie!);
    const created = await request(gateway.url)
      .post('/dashboard/api/keys')
      .set('Cookie', sso.cookie!)
      .set('X-CSRF-Token', csrf)
      .send({ name: `dash-${run}` });
    secrets.push(created.body.secret);
    const session = await dashboardSignIn(gateway.url);
    const rotated = await request(gateway.url)
      .post(`/dashboard/api/keys/${created.body.id}/rotate`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send({});
    secrets.push(rotated.body.secret);
    const wrong = await request(gateway.url)
      .post('/dashboard/api/session')
      .send({ admin_key: `${ADMIN_KEY}-wrong` });
    expect(wrong.status).toBe(401);

    const [create, rotate] = await rowsFor(created.body.id);
    const [user] = await query('SELECT id FROM admin_users WHERE subject = $1 AND issuer = $2', [
      'alice',
      provider.issuer,
    ]);
    expect(create).toMatchObject({
      action: 'key.create',
      actor_type: 'user',
      actor_id: user.id,
      actor_email: 'Alice@Example.com',
      after: expect.objectContaining({ owner_user_id: user.id }),
    });
    expect(rotate).toMatchObject({ action: 'key.rotate', actor_type: 'admin_key' });
    const signIns = await query(
      `SELECT action, actor_type, after FROM audit_log WHERE action LIKE 'auth.%' AND created_at > now() - interval '1 minute' ORDER BY id`,
    );
    expect(signIns).toEqual(
      expect.arrayContaining([
        {
          action: 'auth.sign_in',
          actor_type: 'user',
          after: expect.objectContaining({ method: 'sso' }),
        },
        { action: 'auth.sign_in', actor_type: 'admin_key', after: { method: 'admin_key' } },
        {
          action: 'auth.sign_in_failed',
          actor_type: 'anonymous',
          after: { method: 'admin_key', reason: 'invalid_admin_key' },
        },
      ]),
    );
  });

  it('records CLI changes as `cli` with the operating-system user', async () => {
    const cli: INestApplicationContext = await NestFactory.createApplicationContext(
      CliModule.forCommand(loadAppConfig(process.env), { allowUnmigrated: false }),
      { logger: false },
    );
    const lines: string[] = [];
    const io = { out: (text: string) => void lines.push(text) };
    try {
      await createTeam(cli, { name: `cli-team-${run}`, json: true }, io);
      await updateTeam(
        cli,
        `cli-team-${run}`,
        { budgetUsd: '9', budgetPeriod: 'day', json: true },
        io,
      );
      await createKey(cli, { name: `cli-key-${run}`, json: true }, io);
      secrets.push(JSON.parse(lines[2]).secret);
      await updateKey(cli, `cli-key-${run}`, { team: `cli-team-${run}`, json: true }, io);
      await rotateKey(cli, `cli-key-${run}`, { graceSeconds: 0, json: true }, io);
      secrets.push(JSON.parse(lines.at(-1)!).secret);
      await revokeKey(cli, `cli-key-${run}`, io);
      await deleteTeam(cli, `cli-team-${run}`, io);
    } finally {
      await cli.close();
    }
    const rows = [...(await rowsFor(`cli-team-${run}`)), ...(await rowsFor(`cli-key-${run}`))];
    expect(rows.map((row) => row.action).sort()).toEqual(
      [
        'team.create',
        'team.update',
        'team.delete',
        'key.create',
        'key.update',
        'key.rotate',
        'key.revoke',
      ].sort(),
    );
    for (const row of rows)
      expect(row).toMatchObject({
        actor_type: 'cli',
        actor_id: userInfo().username,
        source_ip: null,
        request_id: null,
      });
  });

  it('keeps every secret, its hash and the admin key out of the log', async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    const text = JSON.stringify(await query('SELECT * FROM audit_log'));
    for (const secret of [...secrets, ADMIN_KEY]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(createHash('sha256').update(secret).digest('hex'));
    }
    // No field of that name either (a failed sign-in's reason may name the ID token in prose).
    expect(text).not.toMatch(/"(secret|secret_hash|client_secret|id_token|access_token)":/);
  });
});
