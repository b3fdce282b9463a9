import { NestFactory } from '@nestjs/core';
import { userInfo } from 'node:os';
import request from 'supertest';
import { CliModule } from '../src/cli/cli.module';
import { createKey, revokeKey, rotateKey } from '../src/cli/commands';
import { createTeam, deleteTeam, updateKey } from '../src/cli/spend-commands';
import { loadAppConfig } from '../src/config/app-config';
import { adminApi, ADMIN_KEY } from './support/admin';
import { queryTestDatabase } from './support/databases';
import { buildDashboard } from './support/dashboard';
import { TestOidcProvider } from './support/oidc-provider';
import { oidcEnv, ssoSignIn } from './support/sso';
import { startTestApp, TestApp } from './support/test-app';

// Sign-ins through the provider and gateway starts take seconds on a busy machine.
jest.setTimeout(30_000);

const run = `${process.pid}-${Date.now()}`;

const query = queryTestDatabase;

/** GET /admin/audit and the dashboard's Audit calls, over rows made by each kind of actor. */
describe('audit log: reading it', () => {
  let gateway: TestApp;
  let provider: TestOidcProvider;
  const admin = () => adminApi(gateway.url);

  beforeAll(async () => {
    buildDashboard();
    provider = await TestOidcProvider.start({
      alice: { email: 'Alice@Example.com', name: 'Alice', groups: ['admins'] },
      victor: { email: 'victor@example.com', name: 'Victor', groups: ['auditors'] },
    });
    gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        ...oidcEnv(provider, { admins: 'admin', auditors: 'viewer' }),
      },
    });
    provider.allowGateway(gateway.url);
    // Rows of the admin key: a team's life and a key's.
    const team = await admin().post('/teams', { name: `team-${run}` });
    await admin().patch(`/teams/${team.body.id}`, { budget_usd: '100', budget_period: 'month' });
    const key = await admin().post('/keys', { name: `key-${run}` });
    await admin().patch(`/keys/${key.body.id}`, { budget_usd: '25.5', budget_period: 'day' });
    await admin().post(`/keys/${key.body.id}/rotate`, { grace_seconds: 0 });
    await admin().post(`/keys/${key.body.id}/revoke`);
    await admin().delete(`/teams/${team.body.id}`);
    // A person's, by bearer token.
    const { idToken } = await provider.tokensFor('alice');
    await request(gateway.url)
      .post('/admin/keys')
      .set('Authorization', `Bearer ${idToken}`)
      .send({ name: `dash-${run}` })
      .expect(201);
    // The CLI's.
    const cli = await NestFactory.createApplicationContext(
      CliModule.forCommand(loadAppConfig(process.env), { allowUnmigrated: false }),
      { logger: false },
    );
    const io = { out: () => undefined };
    try {
      await createTeam(cli, { name: `cli-team-${run}`, json: true }, io);
      await createKey(cli, { name: `cli-key-${run}`, json: true }, io);
      await updateKey(cli, `cli-key-${run}`, { team: `cli-team-${run}`, json: true }, io);
      await rotateKey(cli, `cli-key-${run}`, { graceSeconds: 0, json: true }, io);
      await revokeKey(cli, `cli-key-${run}`, io);
      await deleteTeam(cli, `cli-team-${run}`, io);
    } finally {
      await cli.close();
    }
  });
  afterAll(async () => {
    await gateway?.close();
    await provider?.close();
  });

  it('GET /admin/audit: newest first, filtered by days, actor, action and target, in pages', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const byTarget = await admin().get(`/audit?target=key-${run}`);
    expect(byTarget.status).toBe(200);
    expect(byTarget.body.data.map((row: { action: string }) => row.action)).toEqual([
      'key.revoke',
      'key.rotate',
      'key.update',
      'key.create',
    ]);
    expect(byTarget.body.data[0]).toMatchObject({
      object: 'audit_entry',
      id: expect.stringMatching(/^\d+$/),
      created_at: expect.any(String),
      actor: { type: 'admin_key', id: null, email: null },
      target: { type: 'key', name: `key-${run}` },
      source_ip: expect.any(String),
      request_id: expect.any(String),
    });
    const keyId = byTarget.body.data[0].target.id;
    expect((await admin().get(`/audit?target=${keyId}`)).body.data).toHaveLength(4);
    const inDays = await admin().get(`/audit?target=key-${run}&from=${today}&to=${tomorrow}`);
    expect(inDays.body.data).toHaveLength(4);
    expect((await admin().get(`/audit?target=key-${run}&from=${tomorrow}`)).body.data).toEqual([]);
    expect((await admin().get(`/audit?target=key-${run}&to=${today}`)).body.data).toEqual([]);
    const rotations = await admin().get(`/audit?target=key-${run}&action=key.rotate,key.revoke`);
    expect(rotations.body.data.map((row: { action: string }) => row.action)).toEqual([
      'key.revoke',
      'key.rotate',
    ]);
    const byEmail = await admin().get('/audit?actor=alice@example.com&action=key.create');
    expect(byEmail.body.data.map((row: { target: { name: string } }) => row.target.name)).toContain(
      `dash-${run}`,
    );
    const byCli = await admin().get(`/audit?actor=cli&target=cli-key-${run}`);
    expect(byCli.body.data).toHaveLength(4);
    expect(
      (await admin().get(`/audit?actor=${userInfo().username}&target=cli-key-${run}`)).body.data,
    ).toHaveLength(4);

    const first = await admin().get(`/audit?target=key-${run}&limit=3`);
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const second = await admin().get(
      `/audit?target=key-${run}&limit=3&cursor=${first.body.next_cursor}`,
    );
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data.map((row: { action: string }) => row.action)).toEqual(['key.create']);

    for (const bad of [
      'from=2026-13-01',
      'action=key.delete',
      'limit=0',
      'cursor=abc',
      `from=${tomorrow}&to=${today}`,
    ]) {
      const refused = await admin().get(`/audit?${bad}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_parameter');
    }
  });

  it('exports CSV; admins and viewers read the log, by session and by bearer token', async () => {
    const csv = await admin().get(`/audit?target=team-${run}&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="audit.csv"');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,created_at,actor_type,actor_id,actor_email,action,target_type,target_id,target_name,before,after,source_ip,request_id',
    );
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain(',team.delete,team,');

    const { idToken } = await provider.tokensFor('victor');
    const viewer = await request(gateway.url)
      .get('/admin/audit?limit=1')
      .set('Authorization', `Bearer ${idToken}`);
    expect(viewer.status).toBe(200);
    const sso = await ssoSignIn(gateway.url, provider, 'victor');
    const page = await request(gateway.url)
      .get(`/dashboard/api/audit?target=key-${run}`)
      .set('Cookie', sso.cookie!);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(4);
  });

  it('has no API that edits or deletes a row, and the table refuses it too', async () => {
    const [row] = await query('SELECT id FROM audit_log ORDER BY id LIMIT 1');
    for (const method of ['patch', 'put', 'delete'] as const) {
      const api = request(gateway.url);
      const answer = await api[method](`/admin/audit/${row.id}`)
        .set('Authorization', `Bearer ${ADMIN_KEY}`)
        .send({});
      expect(answer.status).toBe(404);
    }
    for (const sql of [
      `UPDATE audit_log SET action = 'x' WHERE id = ${row.id}`,
      `DELETE FROM audit_log WHERE id = ${row.id}`,
      'TRUNCATE audit_log',
    ])
      await expect(query(sql)).rejects.toThrow(/audit_log is append-only/);
  });
});
