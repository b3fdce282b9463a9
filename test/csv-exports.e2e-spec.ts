import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { CliModule } from '../src/cli/cli.module';
import { spend } from '../src/cli/spend-commands';
import { loadAppConfig } from '../src/config/app-config';
import { adminApi, ADMIN_KEY } from './support/admin';
import { chat } from './support/chat';
import { dashboardSignIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Every CSV the gateway writes on the server (GET /admin/spend and /admin/audit with
 * format=csv, the dashboard's audit export, `gateway spend --csv`) defuses a name that a
 * spreadsheet would run as a formula, here one that hides its = or @ behind a leading blank.
 * The dashboard's own Usage export is the browser test's (dashboard-browser-details).
 */
describe('CSV exports', () => {
  let gateway: TestApp;
  let cli: INestApplicationContext;
  const unique = `${process.pid}-${Date.now()}`;
  const keyName = ` =SUM(1)-key-${unique}`;
  const teamName = `\u00a0@team-${unique}`;
  const admin = () => adminApi(gateway.url);
  const ids = { key: '', team: '' };

  beforeAll(async () => {
    gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, ADMIN_RATE_LIMIT: '1000', KEY_CACHE_TTL_MS: '0' },
      models: { 'alpha-k3': [{ provider: 'mock', price: { input: '0.15', output: '0.6' } }] },
    });
    cli = await NestFactory.createApplicationContext(
      CliModule.forCommand(loadAppConfig(process.env), { allowUnmigrated: false }),
      { logger: false },
    );
    const team = await admin().post('/teams', { name: teamName });
    expect(team.status).toBe(201);
    const key = await admin().post('/keys', { name: keyName, team_id: team.body.id });
    expect(key.status).toBe(201);
    Object.assign(ids, { key: key.body.id, team: team.body.id });
    expect((await chat(gateway, key.body.secret)).status).toBe(200);
    await eventually(async () => {
      const report = await admin().get(`/spend?group_by=key&key_id=${key.body.id}`);
      expect(report.body.data[0]?.requests).toBe(1);
    }, 5_000);
  });
  afterAll(async () => {
    await cli?.close();
    await gateway?.close();
  });

  /** The line of `csv` naming `name`, which must appear only with the apostrophe before it. */
  function lineOf(csv: string, name: string): string {
    const lines = csv.split('\r\n').filter((line) => line.includes(name));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toContain(`'${name}`);
    return lines[0];
  }

  it('GET /admin/spend?format=csv, by key and by team; the cost stays a number', async () => {
    const byKey = await admin().get('/spend?group_by=key&format=csv');
    expect(byKey.status).toBe(200);
    const cells = lineOf(byKey.text, keyName).split(',');
    expect(cells[1]).toBe(`'${keyName}`);
    const header = byKey.text.split('\r\n')[0].split(',');
    expect(cells[header.indexOf('cost_usd')]).toMatch(/^\d+\.\d+$/);
    const byTeam = await admin().get('/spend?group_by=team&format=csv');
    expect(lineOf(byTeam.text, teamName).split(',')[1]).toBe(`'${teamName}`);
  });

  it('GET /admin/audit?format=csv and the dashboard Audit page export', async () => {
    const audit = await admin().get(`/audit?format=csv&target=${ids.key}`);
    expect(audit.status).toBe(200);
    expect(lineOf(audit.text, keyName)).toContain(`,'${keyName},`);
    const session = await dashboardSignIn(gateway.url);
    const page = await request(gateway.url)
      .get(`/dashboard/api/audit?format=csv&target=${ids.team}`)
      .set('Cookie', session.cookie);
    expect(page.status).toBe(200);
    expect(lineOf(page.text, teamName)).toContain(`,'${teamName},`);
  });

  it('gateway spend --csv', async () => {
    const lines: string[] = [];
    const io = { out: (text: string) => void lines.push(text) };
    await spend(cli, { groupBy: 'key', team: teamName, format: 'csv' }, io);
    expect(lineOf(lines.join('\r\n'), keyName).split(',')[1]).toBe(`'${keyName}`);
    await spend(cli, { groupBy: 'team', format: 'csv' }, io);
    expect(lineOf(lines.join('\r\n'), teamName).split(',')[1]).toBe(`'${teamName}`);
  });
});
