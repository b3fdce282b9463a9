import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { loadAppConfig } from '../src/config/app-config';
import {
  DashboardUsageService,
  usageBucketSeconds,
} from '../src/dashboard/dashboard-usage.service';
import { PrismaService } from '../src/database/prisma.service';
import { DAY_MS, pageRows } from '../src/usage/report-range';
import { SPEND_GROUPS, SpendReport } from '../src/usage/spend-report.service';
import { UsagePartitions } from '../src/usage/usage-partitions.service';
import { UsageReport } from '../src/usage/usage-report.service';
import { UsageRepository } from '../src/usage/usage.repository';
import type { UsageRow } from '../src/usage/usage.types';
import { createDatabase, ScratchDatabase } from './support/databases';

/**
 * Reports at scale (docs/usage.md): whole weeks from usage_weekly, other whole days from
 * usage_daily, other whole hours from usage_hourly, partial hours from usage_records. Every report
 * must say exactly what the raw records say, for any range: rows spread over six weeks at random
 * instants, compared with a plain aggregate of the raw records for ranges that start and end
 * anywhere.
 */
describe('reports read the rollups and equal the raw records', () => {
  let scratch: ScratchDatabase;
  let database: Client;
  let prisma: PrismaService;
  const keys = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const team = randomUUID();
  const start = Date.parse('2030-11-03T05:17:00Z');
  const span = 45 * DAY_MS;

  beforeAll(async () => {
    scratch = await createDatabase('gateway_reports');
    database = new Client({ connectionString: scratch.url });
    await database.connect();
    prisma = new PrismaService({ url: scratch.url, embedded: null }, loadAppConfig({}));
    const partitions = new UsagePartitions(prisma, loadAppConfig({}));
    await partitions.maintain(new Date('2030-11-15'));
    await partitions.maintain(new Date('2031-01-15'));
    // A fixed pseudo-random sequence, so a failure can be replayed.
    let seed = 7;
    const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    const rows: UsageRow[] = Array.from({ length: 3_000 }, (_, i) => ({
      id: randomUUID(),
      createdAt: new Date(start + Math.floor(random() * span)),
      requestId: `req-${i}`,
      keyId: keys[Math.floor(random() * keys.length)],
      endpoint: (['chat_completions', 'messages'] as const)[i % 2],
      publicModel: ['alpha-k3', 'beta-v4-pro-0813', 'Zeta_7'][i % 3],
      deployment: i % 5 ? `dep-${i % 2}` : null,
      status: (['completed', 'completed', 'failed', 'aborted'] as const)[i % 4],
      httpStatus: 200,
      errorCode: null,
      stream: false,
      promptTokens: 1 + (i % 97),
      completionTokens: i % 13,
      cachedTokens: i % 3 ? 2 : null,
      cacheWriteTokens: null,
      reasoningTokens: i % 4 ? 1 : null,
      costUsd: i % 7 ? `0.${String(i * 7919).padStart(12, '0')}` : null,
      priceVersion: 'abc123abc123',
      teamId: i % 2 ? team : null,
      latencyMs: 1 + (i % 50),
      // Two rows in three name one of 11 end users (spend by end user, its own rollup).
      endUser: i % 3 ? `end-user-${i % 11}` : null,
    }));
    const repository = new UsageRepository(prisma);
    for (let i = 0; i < rows.length; i += 100) await repository.insertMany(rows.slice(i, i + 100));
  }, 60_000);

  afterAll(async () => {
    await prisma.$disconnect();
    await database.end();
    await scratch.drop();
  });

  /** Ranges starting and ending anywhere: within a day, across days, weeks, and past the data. */
  function ranges(): Array<[Date, Date]> {
    const at = (days: number) => new Date(start + days * DAY_MS);
    return [
      [at(0.2), at(0.7)],
      [at(1.5), at(3.25)],
      [at(-2), at(50)],
      [at(2.9), at(20.1)],
      [new Date('2030-11-07T00:00:00Z'), new Date('2030-11-28T00:00:00Z')],
      [new Date('2030-11-05T00:00:00Z'), new Date('2030-12-10T13:00:00Z')],
      [at(10.01), at(40.99)],
      [at(44), at(46)],
      // Within an hour; buckets under an hour; then of an hour; then of a week.
      [at(7.001), at(7.03)],
      [at(3.1), at(3.3)],
      [at(5.2), at(6.2)],
      [at(-20), at(50)],
    ];
  }

  it('the hourly rollups equal the raw records per UTC hour, key, model and endpoint', async () => {
    const { rows } = await database.query(`
      SELECT hour, key_id::text, public_model, endpoint, requests, completed, failed, aborted,
             prompt_tokens::int, completion_tokens::int, cached_tokens::int, reasoning_tokens::int,
             cost_usd::text, unpriced_requests, latency_ms::int
        FROM usage_hourly ORDER BY 1, 2, 3, 4`);
    const { rows: raw } = await database.query(`
      SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, key_id::text,
             public_model, endpoint, count(*)::int AS requests,
             count(*) FILTER (WHERE status = 'completed')::int AS completed,
             count(*) FILTER (WHERE status = 'failed')::int AS failed,
             count(*) FILTER (WHERE status = 'aborted')::int AS aborted,
             sum(prompt_tokens)::int AS prompt_tokens, sum(completion_tokens)::int AS completion_tokens,
             COALESCE(sum(cached_tokens), 0)::int AS cached_tokens,
             COALESCE(sum(reasoning_tokens), 0)::int AS reasoning_tokens,
             COALESCE(sum(cost_usd), 0)::numeric(30, 12)::text AS cost_usd,
             count(*) FILTER (WHERE cost_usd IS NULL)::int AS unpriced_requests,
             sum(latency_ms)::int AS latency_ms
        FROM usage_records GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`);
    expect(raw.length).toBeGreaterThan(1_000);
    expect(rows).toEqual(raw);
  });

  it('the weekly rollups equal the raw records per Thursday week', async () => {
    const { rows } = await database.query(`
      SELECT to_char(week, 'YYYY-MM-DD') AS week, sum(requests)::int AS requests,
             sum(cost_usd)::text AS cost FROM usage_weekly GROUP BY 1 ORDER BY 1`);
    const { rows: raw } = await database.query(`
      SELECT to_char(d - ((d - DATE '1970-01-01') % 7), 'YYYY-MM-DD') AS week,
             count(*)::int AS requests, COALESCE(sum(cost_usd), 0)::numeric(30, 12)::text AS cost
        FROM (SELECT (created_at AT TIME ZONE 'UTC')::date AS d, cost_usd FROM usage_records) AS r
       GROUP BY 1 ORDER BY 1`);
    expect(rows).toEqual(raw);
    // Thursdays.
    for (const row of rows) expect(new Date(`${row.week}T00:00:00Z`).getUTCDay()).toBe(4);
  });

  it.each(['key', 'model'] as const)(
    'usage per %s equals the raw records for any range',
    async (groupBy) => {
      const report = new UsageReport(new UsageRepository(prisma));
      const column = groupBy === 'key' ? 'key_id::text' : 'public_model';
      for (const [from, to] of ranges()) {
        const { groups } = await report.report({ groupBy, from, to });
        const { rows } = await database.query(
          `SELECT ${column} AS "group", count(*)::int AS requests,
                count(*) FILTER (WHERE status = 'completed')::int AS completed,
                count(*) FILTER (WHERE status = 'failed')::int AS failed,
                count(*) FILTER (WHERE status = 'aborted')::int AS aborted,
                sum(prompt_tokens)::int AS "promptTokens", sum(completion_tokens)::int AS "completionTokens",
                round(sum(latency_ms)::numeric / count(*))::int AS "avgLatencyMs"
           FROM usage_records WHERE created_at >= $1 AND created_at < $2 GROUP BY 1`,
          [from, to],
        );
        const expected = rows
          .map((row) => ({ ...row, totalTokens: row.promptTokens + row.completionTokens }))
          .sort((a, b) => b.requests - a.requests || (a.group < b.group ? -1 : 1));
        expect(groups).toEqual(expected);
      }
    },
  );

  it.each(SPEND_GROUPS)('spend per %s equals the raw records for any days', async (groupBy) => {
    const report = new SpendReport(prisma);
    const column = {
      key: 'key_id::text',
      team: `COALESCE(team_id::text, '')`,
      model: 'public_model',
      deployment: `COALESCE(deployment, '')`,
      day: `to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`,
      end_user: 'end_user',
    }[groupBy];
    // Spend by end user covers the requests that named one.
    const named = groupBy === 'end_user' ? 'AND end_user IS NOT NULL' : '';
    for (const [fromDay, toDay] of [
      ['2030-11-01', '2031-01-01'],
      ['2030-11-06', '2030-11-27'],
      ['2030-11-09', '2030-11-10'],
      ['2030-12-02', '2030-12-20'],
    ]) {
      const { groups } = await report.report({ groupBy, from: fromDay, to: toDay });
      const { rows } = await database.query(
        `SELECT ${column} AS "group", count(*)::int AS requests, sum(prompt_tokens)::int AS prompt,
                COALESCE(sum(cost_usd), 0)::numeric(30, 12)::text AS cost,
                count(*) FILTER (WHERE cost_usd IS NULL)::int AS unpriced
           FROM usage_records WHERE created_at >= $1::date AND created_at < $2::date ${named}
          GROUP BY 1 ORDER BY ${column} COLLATE "C"`,
        [fromDay, toDay],
      );
      expect(
        groups.map((g) => [g.group, g.requests, g.promptTokens, g.costUsd, g.unpricedRequests]),
      ).toEqual(
        rows.map((r) => [
          r.group,
          r.requests,
          r.prompt,
          r.cost.replace(/0+$/, '').replace(/\.$/, ''),
          r.unpriced,
        ]),
      );
    }
  });

  it('dashboard series equal the raw records, in buckets under an hour, of hours, days and weeks', async () => {
    const usage = new DashboardUsageService(prisma);
    const buckets = new Set<number>();
    for (const [from, to] of [...ranges(), [new Date(start), new Date(start + 30 * DAY_MS)]]) {
      const bucket = usageBucketSeconds(from, to);
      buckets.add(bucket);
      // Everyone's requests and those of the keys in a team admin's reach; of all end users and of
      // one (that filter reads the end users' own rollup).
      for (const [keyIds, endUser] of [
        [null, undefined],
        [keys.slice(1, 3), undefined],
        [null, 'end-user-3'],
        [keys.slice(1, 3), 'end-user-3'],
      ] as const) {
        const series = await usage.series(from, to, bucket, keyIds && [...keyIds], endUser);
        for (const [breakdown, column] of [
          ['key', 'key_id::text'],
          ['model', 'public_model'],
          ['endpoint', 'endpoint'],
        ] as const) {
          const { rows: raw } = await database.query(
            `SELECT ${column} AS "group", (floor(extract(epoch FROM created_at) / $3) * $3)::bigint * 1000 AS bucket,
                    count(*)::int AS requests, count(*) FILTER (WHERE status <> 'completed')::int AS errors,
                    sum(prompt_tokens)::int AS "promptTokens", sum(completion_tokens)::int AS "completionTokens",
                    sum(latency_ms)::int AS "latencySum", sum(cost_usd)::numeric(30, 12)::text AS "costUsd"
               FROM usage_records WHERE created_at >= $1 AND created_at < $2
                AND ($4::uuid[] IS NULL OR key_id = ANY($4)) AND ($5::text IS NULL OR end_user = $5)
              GROUP BY 1, 2`,
            [from, to, bucket, keyIds, endUser ?? null],
          );
          // Shortest decimals, as the API shows them ("0.15", not "0.150000000000").
          const normalise = (cost: string | null) =>
            cost === null ? null : cost.replace(/0+$/, '').replace(/\.$/, '');
          const got = [...series[breakdown]].flatMap(([group, points]) =>
            points.map(({ bucket: t, ...point }) => {
              expect(new Date(t).toISOString()).toBe(t);
              return [`${group}|${Date.parse(t)}`, point];
            }),
          );
          const want = raw.map(({ group, bucket: t, ...point }) => [
            `${group}|${t}`,
            { ...point, costUsd: normalise(point.costUsd) },
          ]);
          expect(new Map(got as Array<[string, unknown]>)).toEqual(
            new Map(want as Array<[string, unknown]>),
          );
          // Each series in bucket order.
          for (const points of series[breakdown].values())
            expect(points.map((p) => Date.parse(p.bucket))).toEqual(
              points.map((p) => Date.parse(p.bucket)).sort((a, b) => a - b),
            );
        }
      }
    }
    // Every kind of bucket was compared: under an hour, an hour, a day, a week.
    expect([...buckets].sort((a, b) => a - b)).toEqual([60, 300, 3600, 86_400, 7 * 86_400]);
  });

  it('pages every row exactly once, in report order', () => {
    const rows = Array.from({ length: 23 }, (_, i) => ({
      group: `g${String(i).padStart(2, '0')}`,
    }));
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = pageRows(
        rows,
        5,
        after,
        (row) => [row.group],
        (row, [cursor]) => row.group > String(cursor),
      );
      seen.push(...page.data.map((row) => row.group));
      expect(page.hasMore).toBe(page.nextAfter !== null);
      after = page.nextAfter ?? undefined;
    } while (after);
    expect(seen).toEqual(rows.map((row) => row.group));
  });
});
