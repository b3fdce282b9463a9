import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { loadAppConfig } from '../src/config/app-config';
import { CliModule } from '../src/cli/cli.module';
import { createKey, listKeys, revokeKey, rotateKey, seedKeys } from '../src/cli/commands';
import {
  createTeam,
  deleteTeam,
  listTeams,
  spend,
  updateKey,
  updateTeam,
} from '../src/cli/spend-commands';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';
import { chat, chatBody } from './support/chat';

describe('key management CLI (same service as the gateway)', () => {
  let cli: INestApplicationContext;
  let gateway: TestApp;
  let lines: string[];
  const io = { out: (text: string) => void lines.push(text) };
  const unique = `${Date.now()}`;
  const ask = (key: string) => chat(gateway, key);

  beforeAll(async () => {
    cli = await NestFactory.createApplicationContext(
      CliModule.forCommand(loadAppConfig(process.env), { allowUnmigrated: false }),
      { logger: false },
    );
    gateway = await startTestApp({ env: { KEY_CACHE_TTL_MS: '0' } });
  });
  beforeEach(() => (lines = []));
  afterAll(async () => {
    await cli.close();
    await gateway.close();
  });

  it('creates a key, prints the secret exactly once, and the gateway accepts it', async () => {
    await createKey(cli, { name: `cli-${unique}`, json: true, rpm: 30, models: ['alpha-k3'] }, io);
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]);
    expect(created).toMatchObject({
      name: `cli-${unique}`,
      status: 'active',
      rpm_limit: 30,
      allowed_models: ['alpha-k3'],
    });
    expect(created.secret).toMatch(/^gk-[A-Za-z0-9_-]{43}$/);
    expect((await ask(created.secret)).status).toBe(200);

    lines = [];
    await listKeys(cli, true, io);
    const listed = JSON.parse(lines[0]).find((k: { name: string }) => k.name === `cli-${unique}`);
    expect(listed.key_prefix).toBe(created.secret.slice(0, 10));
    expect(JSON.stringify(JSON.parse(lines[0]))).not.toContain(created.secret);

    lines = [];
    await revokeKey(cli, `cli-${unique}`, io);
    expect(lines[0]).toMatch(/^Revoked key/);
    expect((await ask(created.secret)).body.error.code).toBe('key_revoked');
  });

  it('refuses a duplicate name', async () => {
    await createKey(cli, { name: `dup-${unique}`, json: false }, io);
    expect(lines[1]).toMatch(/^Secret \(shown once, store it now\): gk-/);
    await expect(createKey(cli, { name: `dup-${unique}`, json: false }, io)).rejects.toThrow(
      'exists',
    );
  });

  it('seeds admin-declared keys idempotently, by plaintext or by hash', async () => {
    const plain = `gk-seeded-team-a-${unique}-xxxxxxxx`;
    const hashed = `gk-seeded-team-b-${unique}-yyyyyyyy`;
    process.env.GATEWAY_SEED_KEYS = JSON.stringify([
      { name: `team-a-${unique}`, key: plain, rpm_limit: 50 },
      {
        name: `team-b-${unique}`,
        key_sha256: createHash('sha256').update(hashed).digest('hex'),
        allowed_models: ['beta-v4-pro-0813'],
      },
    ]);
    try {
      await seedKeys(cli, io);
      await seedKeys(cli, io);
    } finally {
      delete process.env.GATEWAY_SEED_KEYS;
    }
    expect(lines.filter((line) => line === '2 key(s) seeded.')).toHaveLength(2);
    expect((await ask(plain)).status).toBe(200);
    const denied = await ask(hashed);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('model_not_allowed');

    const database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
    const { rows } = await database.query(
      'SELECT name, rpm_limit FROM virtual_keys WHERE name LIKE $1 ORDER BY name',
      [`team-%-${unique}`],
    );
    await database.end();
    expect(rows).toEqual([
      { name: `team-a-${unique}`, rpm_limit: 50 },
      { name: `team-b-${unique}`, rpm_limit: null },
    ]);
  });

  it('rejects a malformed seed declaration with a clear message', async () => {
    process.env.GATEWAY_SEED_KEYS = JSON.stringify([{ name: 'x', key: 'short' }]);
    try {
      await expect(seedKeys(cli, io)).rejects.toThrow('seed key "x": a key is 20-256 characters');
    } finally {
      delete process.env.GATEWAY_SEED_KEYS;
    }
  });

  it('names the seed key whose secret another key already uses, instead of a raw constraint error', async () => {
    const secret = `gk-duplicate-${unique}-xxxxxxxxxxxx`;
    process.env.GATEWAY_SEED_KEYS = JSON.stringify([
      { name: `first-${unique}`, key: secret },
      { name: `second-${unique}`, key: secret },
    ]);
    try {
      const failure = seedKeys(cli, io);
      await expect(failure).rejects.toThrow(
        `seed key "second-${unique}": its secret is already used by another key`,
      );
      await expect(failure).rejects.not.toThrow(/Unique constraint|prisma/i);
    } finally {
      delete process.env.GATEWAY_SEED_KEYS;
    }
  });

  it('names GATEWAY_SEED_KEYS when it is not JSON', async () => {
    process.env.GATEWAY_SEED_KEYS = '[{name: x}]';
    try {
      await expect(seedKeys(cli, io)).rejects.toThrow(/^GATEWAY_SEED_KEYS: /);
    } finally {
      delete process.env.GATEWAY_SEED_KEYS;
    }
  });

  it('rotates a key: a new secret once, the old one kept for the grace period', async () => {
    await createKey(
      cli,
      { name: `rotate-${unique}`, json: true, budget: 100_000, budgetPeriod: 'day' },
      io,
    );
    const created = JSON.parse(lines[0]);
    expect(created).toMatchObject({ token_budget: 100_000, budget_period: 'day' });
    lines = [];
    await rotateKey(cli, `rotate-${unique}`, { graceSeconds: 600, json: true }, io);
    const rotated = JSON.parse(lines[0]);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.previous_secret_expires_at)).toBeGreaterThan(Date.now() + 590_000);
    expect((await ask(rotated.secret)).status).toBe(200);
    expect((await ask(created.secret)).status).toBe(200);
  });

  it('seeds budgets and rejects a budget without its period', async () => {
    process.env.GATEWAY_SEED_KEYS = JSON.stringify([
      {
        name: `budget-${unique}`,
        key: `gk-budget-${unique}-zzzzzzzzzzzz`,
        token_budget: 5000,
        budget_period: 'month',
      },
    ]);
    try {
      await seedKeys(cli, io);
      process.env.GATEWAY_SEED_KEYS = JSON.stringify([
        { name: 'y', key: `gk-budget-${unique}-wwwwwwwwwwww`, token_budget: 5 },
      ]);
      await expect(seedKeys(cli, io)).rejects.toThrow(
        '"token_budget" and "budget_period" go together',
      );
    } finally {
      delete process.env.GATEWAY_SEED_KEYS;
    }
    lines = [];
    await listKeys(cli, true, io);
    const seeded = JSON.parse(lines[0]).find(
      (k: { name: string }) => k.name === `budget-${unique}`,
    );
    expect(seeded).toMatchObject({ token_budget: 5000, budget_period: 'month' });
  });

  it('takes 0 as "no limit" for a key, even where the gateway has a default', async () => {
    await createKey(cli, { name: `unlimited-${unique}`, json: true, rpm: 0 }, io);
    const response = await ask(JSON.parse(lines[0]).secret);
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-limit-requests']).toBeUndefined();
    lines = [];
    await createKey(cli, { name: `limited-${unique}`, json: true }, io);
    expect((await ask(JSON.parse(lines[0]).secret)).headers['x-ratelimit-limit-requests']).toBe(
      '100',
    );
  });
});

describe('teams and spend on the CLI (docs/spend.md)', () => {
  let cli: INestApplicationContext;
  let gateway: TestApp;
  let database: Client;
  let lines: string[];
  const io = { out: (text: string) => void lines.push(text) };
  const unique = `${Date.now()}`;
  const ask = (key: string) => chat(gateway, key, chatBody('alpha-k3', 'hi there'));

  beforeAll(async () => {
    cli = await NestFactory.createApplicationContext(
      CliModule.forCommand(loadAppConfig(process.env), { allowUnmigrated: false }),
      { logger: false },
    );
    gateway = await startTestApp({
      models: { 'alpha-k3': [{ provider: 'mock', price: { input: '3', output: '15' } }] },
      env: { KEY_CACHE_TTL_MS: '0', USAGE_FLUSH_INTERVAL_MS: '20' },
    });
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
  });
  beforeEach(() => (lines = []));
  afterAll(async () => {
    await database.end();
    await cli.close();
    await gateway.close();
  });

  it('creates and updates a team, puts keys in it, moves one out, and reports its spend', async () => {
    await createTeam(
      cli,
      {
        name: `cli-team-${unique}`,
        budgetUsd: '20',
        budgetPeriod: 'month',
        allowedModels: ['alpha-k3'],
        json: true,
      },
      io,
    );
    const team = JSON.parse(lines[0]);
    expect(team).toMatchObject({ budget_usd: '20', budget_period: 'month' });
    lines = [];
    await updateTeam(cli, team.name, { tokenBudget: 1_000_000, json: true }, io);
    expect(JSON.parse(lines[0])).toMatchObject({ token_budget: 1_000_000, budget_usd: '20' });

    lines = [];
    await createKey(
      cli,
      {
        name: `cli-member-${unique}`,
        json: true,
        team: team.name,
        budgetUsd: '1.5',
        budgetPeriod: 'day',
      },
      io,
    );
    const member = JSON.parse(lines[0]);
    expect(member).toMatchObject({ team_id: team.id, budget_usd: '1.5', budget_period: 'day' });
    lines = [];
    await createKey(cli, { name: `cli-other-${unique}`, json: true }, io);
    const other = JSON.parse(lines[0]);
    lines = [];
    await updateKey(cli, other.name, { team: team.id, json: true }, io);
    expect(JSON.parse(lines[0]).team_id).toBe(team.id);

    for (const secret of [member.secret, member.secret, other.secret])
      expect((await ask(secret)).status).toBe(200);
    await eventually(async () => {
      lines = [];
      await spend(cli, { groupBy: 'team', team: team.name, format: 'json' }, io);
      expect(JSON.parse(lines[0])).toEqual([
        expect.objectContaining({ team: team.id, name: team.name, requests: 3 }),
      ]);
    }, 5_000);
    const [raw] = (
      await database.query<{ total: string }>(
        `SELECT sum(cost_usd)::text AS total FROM usage_records WHERE team_id = $1`,
        [team.id],
      )
    ).rows;

    const [row] = JSON.parse(lines[0]);
    expect(`${row.cost_usd}`).toBe(raw.total.replace(/0+$/, '').replace(/\.$/, ''));
    lines = [];
    await spend(cli, { groupBy: 'key', team: team.name, format: 'csv' }, io);
    const csv = lines[0].split('\r\n');
    expect(csv[0]).toBe(
      'key,name,requests,prompt_tokens,completion_tokens,cached_tokens,reasoning_tokens,cost_usd,unpriced_requests',
    );
    expect(
      csv
        .slice(1)
        .map((line) => line.split(',')[1])
        .sort(),
    ).toEqual([member.name, other.name].sort());

    lines = [];
    await updateKey(cli, other.name, { team: null, json: true }, io);
    expect(JSON.parse(lines[0]).team_id).toBeNull();
    lines = [];
    await listTeams(cli, false, io);
    expect(lines[0]).toBe('ID\tNAME\tBUDGET_USD\tTOKEN_BUDGET\tPERIOD\tMODELS');
    expect(lines.find((line) => line.startsWith(`${team.id}\t`))?.split('\t')).toEqual([
      team.id,
      team.name,
      '20',
      '1000000',
      'month',
      'alpha-k3',
    ]);
    lines = [];
    await deleteTeam(cli, team.name, io);
    expect(lines[0]).toMatch(/1 key\(s\) left it/);
  });

  it('seeds dollar budgets, refusing a malformed one', async () => {
    process.env.GATEWAY_SEED_KEYS = JSON.stringify([
      {
        name: `seed-usd-${unique}`,
        key: `gk-seed-usd-${unique}-zzzzzzzzzz`,
        budget_usd: '12.75',
        budget_period: 'month',
      },
    ]);
    try {
      await seedKeys(cli, io);
      for (const bad of [{ budget_usd: 12.75, budget_period: 'month' }, { budget_usd: '5' }]) {
        process.env.GATEWAY_SEED_KEYS = JSON.stringify([
          { name: 'z', key: `gk-seed-usd-${unique}-wwwwwwwwww`, ...bad },
        ]);
        await expect(seedKeys(cli, io)).rejects.toThrow('"budget_usd"');
      }
    } finally {
      delete process.env.GATEWAY_SEED_KEYS;
    }
    lines = [];
    await listKeys(cli, true, io);
    expect(
      JSON.parse(lines[0]).find((k: { name: string }) => k.name === `seed-usd-${unique}`),
    ).toMatchObject({ budget_usd: '12.75', budget_period: 'month', team_id: null });
  });
});
