import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { splitRange } from './report-range';
import { bucketColumn, GROUP_COLUMNS, rollupQuery, runRollupQuery } from './rollup-query';
import type { UsageQuery, UsageRow } from './usage.types';

/** Totals of one group; `latencyMs` is the sum over its requests. */
export interface UsageCount {
  group: string;
  requests: number;
  completed: number;
  failed: number;
  aborted: number;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

const COLUMNS = `"id", "created_at", "request_id", "key_id", "public_model", "deployment", "status",
  "http_status", "error_code", "stream", "prompt_tokens", "completion_tokens", "cached_tokens",
  "cache_write_tokens", "reasoning_tokens", "cost_usd", "price_version", "team_id", "latency_ms",
  "endpoint", "end_user"`;

const DAY = `("created_at" AT TIME ZONE 'UTC')::date`;
const MEASURES = [
  'requests',
  'completed',
  'failed',
  'aborted',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'cost_usd',
  'unpriced_requests',
  'latency_ms',
];

/** The grouping columns of the rollup tables, as each is read from the inserted rows. */
const DIMENSIONS = {
  key_id: `"key_id"`,
  // '' is "no team" / "no deployment" in the rollups.
  team_id: `COALESCE("team_id"::text, '')`,
  public_model: `"public_model"`,
  deployment: `COALESCE("deployment", '')`,
  endpoint: `"endpoint"`,
  end_user: `"end_user"`,
};
type Dimension = keyof typeof DIMENSIONS;
const USAGE_DIMENSIONS: Dimension[] = [
  'key_id',
  'team_id',
  'public_model',
  'deployment',
  'endpoint',
];
const END_USER_DIMENSIONS: Dimension[] = [
  'key_id',
  'team_id',
  'end_user',
  'public_model',
  'endpoint',
];
/**
 * usage_hourly's: the team and deployment are left out (docs/usage.md, "Reports at scale"). Its
 * hours are the reports' own hour buckets of raw rows (bucketColumn), so the two always agree.
 */
const HOURLY_DIMENSIONS: Dimension[] = ['key_id', 'public_model', 'endpoint'];

/**
 * Adds the inserted rows (those `where` keeps) to one rollup table, per period (`periodSql` of
 * created_at) and group.
 */
function rollupUpsert(
  table: string,
  period: string,
  periodSql: string,
  dimensions: Dimension[],
  where = '',
): string {
  const key = [period, ...dimensions].map((column) => `"${column}"`).join(', ');
  const positions = [period, ...dimensions].map((_column, index) => index + 1).join(', ');
  return `
INSERT INTO "${table}" AS d (${key},
  ${MEASURES.map((measure) => `"${measure}"`).join(', ')})
SELECT ${periodSql}, ${dimensions.map((dimension) => DIMENSIONS[dimension]).join(', ')},
  count(*), count(*) FILTER (WHERE "status" = 'completed'),
  count(*) FILTER (WHERE "status" = 'failed'), count(*) FILTER (WHERE "status" = 'aborted'),
  sum("prompt_tokens"), sum("completion_tokens"), COALESCE(sum("cached_tokens"), 0),
  COALESCE(sum("cache_write_tokens"), 0), COALESCE(sum("reasoning_tokens"), 0),
  COALESCE(sum("cost_usd"), 0), count(*) FILTER (WHERE "cost_usd" IS NULL), sum("latency_ms")
FROM inserted ${where}
GROUP BY ${positions}
ORDER BY ${positions}
ON CONFLICT (${key}) DO UPDATE SET
  ${MEASURES.map((measure) => `"${measure}" = d."${measure}" + EXCLUDED."${measure}"`).join(',\n  ')}`;
}

/**
 * One statement inserts the batch and adds the rows it really inserted (RETURNING skips the
 * duplicates of a retried batch) to the daily, weekly and hourly rollups (weeks start on
 * Thursdays, as the dashboard's 7-day buckets do), so rollups and raw records always agree
 * (docs/spend.md, "Spend reports and retention"). Days and hours are UTC. Rollup rows are upserted
 * in key order, so instances flushing at the same time lock them in the same order and cannot
 * deadlock. The rows that name an end user are added to usage_daily_end_user as well
 * (docs/spend.md, "Spend by end user").
 */
const INSERT_BATCH = `
WITH inserted AS (
  INSERT INTO "usage_records" (${COLUMNS})
  SELECT ${COLUMNS}
  FROM jsonb_to_recordset($1::jsonb) AS r("id" uuid, "created_at" timestamptz, "request_id" text, "key_id" uuid,
    "public_model" text, "deployment" text, "status" "usage_status", "http_status" integer, "error_code" text,
    "stream" boolean, "prompt_tokens" integer, "completion_tokens" integer, "cached_tokens" integer,
    "cache_write_tokens" integer, "reasoning_tokens" integer, "cost_usd" numeric, "price_version" text,
    "team_id" uuid, "latency_ms" integer, "endpoint" text, "end_user" text)
  ON CONFLICT DO NOTHING
  RETURNING *
),
daily AS (${rollupUpsert('usage_daily', 'day', DAY, USAGE_DIMENSIONS)}),
end_users AS (${rollupUpsert('usage_daily_end_user', 'day', DAY, END_USER_DIMENSIONS, `WHERE "end_user" IS NOT NULL`)}),
hourly AS (${rollupUpsert('usage_hourly', 'hour', bucketColumn(3600).raw!, HOURLY_DIMENSIONS)})
${rollupUpsert('usage_weekly', 'week', `${DAY} - ((${DAY} - DATE '1970-01-01') % 7)`, USAGE_DIMENSIONS)}`;

function toRecord(row: UsageRow) {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    request_id: row.requestId,
    key_id: row.keyId,
    endpoint: row.endpoint,
    public_model: row.publicModel,
    deployment: row.deployment,
    status: row.status,
    http_status: row.httpStatus,
    error_code: row.errorCode,
    stream: row.stream,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    cached_tokens: row.cachedTokens,
    cache_write_tokens: row.cacheWriteTokens,
    reasoning_tokens: row.reasoningTokens,
    // A string in the JSON, so Postgres parses the exact decimal (never a float).
    cost_usd: row.costUsd,
    price_version: row.priceVersion,
    team_id: row.teamId,
    latency_ms: row.latencyMs,
    end_user: row.endUser,
  };
}

/** Prisma queries for usage records, and nothing else. */
@Injectable()
export class UsageRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One multi-row INSERT. Rows carry their own id and time, so a batch retried after an error
   * whose commit actually went through is skipped rather than counted twice.
   *
   * Raw SQL with the whole batch as one JSON parameter: Prisma's createMany compiles a query per
   * batch in WebAssembly on the event loop, measured at about 80 ms for 400 rows, which showed up
   * as the gateway's p99 latency. This costs one JSON.stringify.
   */
  async insertMany(rows: UsageRow[]): Promise<void> {
    // On Prisma's pool, not through its client: the same statement and parameter, without the
    // client's per-query work (about 4 % of a request's CPU).
    await this.prisma.pool.query(INSERT_BATCH, [JSON.stringify(rows.map(toRecord))]);
  }

  /**
   * Totals per key or per public model over [from, to): whole UTC days from the daily rollups,
   * the partial days at the ends from the raw records, so the cost follows the number of days and
   * groups, not of requests (docs/usage.md, "Reports at scale").
   */
  async totalsByGroup(query: UsageQuery & { from: Date; to: Date }): Promise<UsageCount[]> {
    const statement = rollupQuery(
      splitRange(query.from, query.to),
      [query.groupBy === 'key' ? GROUP_COLUMNS.key : GROUP_COLUMNS.model],
      [
        'requests',
        'completed',
        'failed',
        'aborted',
        'prompt_tokens',
        'completion_tokens',
        'latency_ms',
      ],
      { keyId: query.keyId, model: query.model },
    );
    if (!statement) return [];
    const rows = await runRollupQuery<Record<string, string>>(this.prisma.pool, statement);
    return rows.map((row) => ({
      group: row.g0,
      requests: Number(row.requests),
      completed: Number(row.completed),
      failed: Number(row.failed),
      aborted: Number(row.aborted),
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      latencyMs: Number(row.latency_ms),
    }));
  }
}
