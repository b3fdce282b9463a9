import { loadAppConfig } from '../src/config/app-config';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { PrismaService } from '../src/database/prisma.service';
import { SpendReport } from '../src/usage/spend-report.service';
import { UsagePartitions } from '../src/usage/usage-partitions.service';
import { UsageRepository } from '../src/usage/usage.repository';
import type { UsageRow } from '../src/usage/usage.types';
import { createDatabase, ScratchDatabase } from './support/databases';

/**
 * Daily rollups and retention (docs/spend.md), on a database of their own: retention drops whole
 * months, which must not touch the rows of suites running in parallel on the shared database.
 * Rows go through UsageRepository.insertMany, the recorder's own write path.
 */
describe('spend rollups and retention', () => {
  let scratch: ScratchDatabase;
  let database: Client;
  let prisma: PrismaService;
  let repository: UsageRepository;
  const keys = [randomUUID(), randomUUID(), randomUUID()];
  const team = randomUUID();

  beforeAll(async () => {
    scratch = await createDatabase('gateway_rollups');
    database = new Client({ connectionString: scratch.url });
    await database.connect();
    prisma = new PrismaService({ url: scratch.url, embedded: null }, loadAppConfig({}));
    repository = new UsageRepository(prisma);
    // Monthly partitions for the months used below, as the running gateway keeps them.
    const partitions = new UsagePartitions(prisma, loadAppConfig({}));
    await partitions.maintain(new Date('2030-11-15'));
    await partitions.maintain(new Date('2031-01-15'));
  });

  afterAll(async () => {
    await prisma.$disconnect();
    await database.end();
    await scratch.drop();
  });

  let sequence = 0;
  function row(createdAt: string, overrides: Partial<UsageRow> = {}): UsageRow {
    sequence++;
    return {
      id: randomUUID(),
      createdAt: new Date(createdAt),
      requestId: `req-${sequence}`,
      keyId: keys[sequence % 3],
      endpoint: 'chat_completions',
      publicModel: sequence % 2 ? 'alpha-k3' : 'beta-v4-pro-0813',
      deployment: sequence % 4 ? 'dep-a' : null,
      status: (['completed', 'failed', 'aborted'] as const)[sequence % 3],
      httpStatus: 200,
      errorCode: null,
      stream: false,
      promptTokens: 10 + sequence,
      completionTokens: sequence % 7,
      cachedTokens: sequence % 5 ? 3 : null,
      cacheWriteTokens: null,
      reasoningTokens: sequence % 3 ? 1 : null,
      // Exact decimals a float could not add: 0.1 + 0.2 style values, and some unpriced.
      costUsd: sequence % 6 ? `0.${String(sequence).padStart(12, '0')}` : null,
      priceVersion: 'abc123abc123',
      teamId: sequence % 2 ? team : null,
      latencyMs: 5,
      // Two rows in five name no end user; the others one of three.
      endUser: sequence % 5 < 2 ? null : `end-user-${sequence % 3}`,
      ...overrides,
    };
  }

  const RAW_BY_DAY_KEY = `
    SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, key_id::text,
           COALESCE(team_id::text, '') AS team_id, public_model, COALESCE(deployment, '') AS deployment,
           count(*)::int AS requests, sum(prompt_tokens)::text AS prompt_tokens,
           sum(completion_tokens)::text AS completion_tokens, COALESCE(sum(cached_tokens), 0)::text AS cached_tokens,
           COALESCE(sum(reasoning_tokens), 0)::text AS reasoning_tokens,
           COALESCE(sum(cost_usd), 0)::numeric(30, 12)::text AS cost_usd, count(*) FILTER (WHERE cost_usd IS NULL)::int AS unpriced
      FROM usage_records GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`;
  const ROLLUPS = `
    SELECT to_char(day, 'YYYY-MM-DD') AS day, key_id::text, team_id, public_model, deployment, requests,
           prompt_tokens::text, completion_tokens::text, cached_tokens::text, reasoning_tokens::text,
           cost_usd::text, unpriced_requests AS unpriced
      FROM usage_daily ORDER BY 1, 2, 3, 4, 5`;
  const RAW_BY_HOUR_KEY = `
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24') AS hour, key_id::text, public_model,
           endpoint, count(*)::int AS requests, sum(prompt_tokens)::text AS prompt_tokens,
           COALESCE(sum(cost_usd), 0)::numeric(30, 12)::text AS cost_usd,
           count(*) FILTER (WHERE cost_usd IS NULL)::int AS unpriced
      FROM usage_records GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`;
  const HOURLY = `
    SELECT to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24') AS hour, key_id::text, public_model,
           endpoint, requests, prompt_tokens::text, cost_usd::text, unpriced_requests AS unpriced
      FROM usage_hourly ORDER BY 1, 2, 3, 4`;
  const RAW_BY_END_USER = `
    SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, key_id::text,
           COALESCE(team_id::text, '') AS team_id, end_user, public_model, endpoint,
           count(*)::int AS requests, sum(prompt_tokens)::text AS prompt_tokens,
           COALESCE(sum(cost_usd), 0)::numeric(30, 12)::text AS cost_usd,
           count(*) FILTER (WHERE status = 'failed')::int AS failed
      FROM usage_records WHERE end_user IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`;
  const END_USER_ROLLUPS = `
    SELECT to_char(day, 'YYYY-MM-DD') AS day, key_id::text, team_id, end_user, public_model, endpoint,
           requests, prompt_tokens::text, cost_usd::text, failed
      FROM usage_daily_end_user ORDER BY 1, 2, 3, 4, 5, 6`;

  it('rollups equal the raw records, batch after batch, and a retried batch is not counted twice', async () => {
    const days = ['2030-11-03', '2030-11-30', '2030-12-01', '2031-01-10', '2031-01-15'];
    const batches: UsageRow[][] = [];
    for (let b = 0; b < 6; b++)
      batches.push(
        Array.from({ length: 40 }, (_, i) =>
          row(`${days[(b + i) % days.length]}T${String(i % 24).padStart(2, '0')}:30:00Z`),
        ),
      );
    for (const batch of batches) await repository.insertMany(batch);
    // The recorder retries a batch whose commit it could not confirm: same ids, same times.
    await repository.insertMany(batches[2]);
    const raw = (await database.query(RAW_BY_DAY_KEY)).rows;
    expect(raw.reduce((n, r) => n + r.requests, 0)).toBe(240);
    expect((await database.query(ROLLUPS)).rows).toEqual(raw);
    expect((await database.query(HOURLY)).rows).toEqual(
      (await database.query(RAW_BY_HOUR_KEY)).rows,
    );
    // The end users' rollup holds the rows that name one, and only those.
    const rawByEndUser = (await database.query(RAW_BY_END_USER)).rows;
    expect(rawByEndUser.reduce((n, r) => n + r.requests, 0)).toBe(144);
    expect((await database.query(END_USER_ROLLUPS)).rows).toEqual(rawByEndUser);
  });

  it('the spend report reads the rollups: totals per key, team, model, day match the raw records', async () => {
    const report = new SpendReport(prisma);
    const [rawTotal] = (
      await database.query<{ cost: string; n: number }>(
        `SELECT sum(cost_usd)::text AS cost, count(*)::int AS n FROM usage_records`,
      )
    ).rows;
    // The rows lie in 2030-2031: a report without `from` covers only the last 30 days.
    const all = { from: '2030-01-01', to: '2032-01-01' };
    for (const groupBy of ['key', 'team', 'model', 'deployment', 'day'] as const) {
      const { groups } = await report.report({ groupBy, ...all });
      expect(groups.reduce((n, g) => n + g.requests, 0)).toBe(rawTotal.n);
      // Summed as exact decimals (BigInt of pico-dollars), never as floats.
      const pico = groups.reduce((sum, g) => sum + toPico(g.costUsd), 0n);
      expect(pico).toBe(toPico(rawTotal.cost));
    }
    const { groups: byKey } = await report.report({ groupBy: 'key', keyId: keys[1], ...all });
    const [rawKey] = (
      await database.query<{ cost: string }>(
        `SELECT sum(cost_usd)::text AS cost FROM usage_records WHERE key_id = $1`,
        [keys[1]],
      )
    ).rows;
    expect(byKey).toHaveLength(1);
    expect(toPico(byKey[0].costUsd)).toBe(toPico(rawKey.cost));
    const { groups: december } = await report.report({
      groupBy: 'day',
      from: '2030-12-01',
      to: '2031-01-01',
    });
    expect(december.map((g) => g.group)).toEqual(['2030-12-01']);
    const { groups: teams } = await report.report({ groupBy: 'team', ...all });
    expect(teams.map((g) => g.group).sort()).toEqual(['', team].sort());
  });

  it('USAGE_RETENTION_DAYS drops raw records older than N days (whole partitions, then the straddling month) and their hourly rollups; daily rollups stay', async () => {
    const before = (await database.query(ROLLUPS)).rows;
    const endUsersBefore = (await database.query(END_USER_ROLLUPS)).rows;
    const all = { from: '2030-01-01', to: '2032-01-01' };
    const { groups: byEndUser } = await new SpendReport(prisma).report({
      groupBy: 'end_user',
      ...all,
    });
    expect(byEndUser.map((g) => g.group)).toEqual(['end-user-0', 'end-user-1', 'end-user-2']);
    // "Now" is 2031-01-20: 10 days keep 2031-01-10 onwards.
    const { dropped } = await new UsagePartitions(
      prisma,
      loadAppConfig({ USAGE_RETENTION_DAYS: 10 }),
    ).maintain(new Date('2031-01-20T08:00:00Z'));
    expect(dropped).toEqual(['usage_records_2030_11', 'usage_records_2030_12']);
    const left = await database.query<{ day: string; n: number }>(
      `SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS n
         FROM usage_records GROUP BY 1 ORDER BY 1`,
    );
    expect(left.rows.map((r) => r.day)).toEqual(['2031-01-10', '2031-01-15']);
    // A later run with a cutoff inside January deletes only rows before it.
    await new UsagePartitions(prisma, loadAppConfig({ USAGE_RETENTION_DAYS: 3 })).maintain(
      new Date('2031-01-16T08:00:00Z'),
    );
    const after = await database.query<{ day: string }>(
      `SELECT DISTINCT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day FROM usage_records`,
    );
    expect(after.rows.map((r) => r.day)).toEqual(['2031-01-15']);
    expect((await database.query(ROLLUPS)).rows).toEqual(before);
    // The hours go with the raw rows they summed, and only those.
    const hours = (await database.query(HOURLY)).rows;
    expect(hours.length).toBeGreaterThan(0);
    expect(hours.every((h) => h.hour.startsWith('2031-01-15'))).toBe(true);
    expect(hours).toEqual((await database.query(RAW_BY_HOUR_KEY)).rows);
    expect((await database.query(END_USER_ROLLUPS)).rows).toEqual(endUsersBefore);
    // A report over every day still has every end user, with the same totals, from the rollup.
    const report = new SpendReport(prisma);
    expect((await report.report({ groupBy: 'end_user', ...all })).groups).toEqual(byEndUser);
    const { groups: oneKey } = await report.report({
      groupBy: 'end_user',
      keyId: keys[0],
      ...all,
    });
    const [rolled] = (
      await database.query<{ n: number }>(
        `SELECT sum(requests)::int AS n FROM usage_daily_end_user WHERE key_id = $1`,
        [keys[0]],
      )
    ).rows;
    expect(oneKey.reduce((n, g) => n + g.requests, 0)).toBe(rolled.n);
    const { groups: spend } = await new SpendReport(prisma).report({
      groupBy: 'day',
      from: '2030-01-01',
      to: '2032-01-01',
    });
    expect(spend.map((g) => g.group)).toEqual([
      '2030-11-03',
      '2030-11-30',
      '2030-12-01',
      '2031-01-10',
      '2031-01-15',
    ]);
  });
});

function toPico(decimal: string): bigint {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole + fraction.padEnd(12, '0'));
}
