import { Injectable } from '@nestjs/common';
import { trimDecimal } from '../common/money/decimal';
import { PrismaService } from '../database/prisma.service';
import { splitRange } from '../usage/report-range';
import { bucketColumn, GROUP_COLUMNS, rollupQuery, runRollupQuery } from '../usage/rollup-query';

/** One point of a series: a time bucket's totals for one key, model or endpoint. */
export interface UsagePoint {
  /** The bucket's start, ISO 8601 in UTC with milliseconds ("2026-11-28T05:00:00.000Z"). */
  bucket: string;
  requests: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  latencySum: number;
  /**
   * Exact decimal string of US dollars, shortest form (docs/spend.md); null when no request of
   * the point had a price.
   */
  costUsd: string | null;
}

/** A series per key, per model and per endpoint (chat_completions, messages, responses, …). */
export type UsageBreakdown = 'key' | 'model' | 'endpoint';

const HOUR_SECONDS = 3600;
const DAY_SECONDS = 86_400;
const BUCKETS = [
  60,
  300,
  900,
  1800,
  HOUR_SECONDS,
  3 * HOUR_SECONDS,
  6 * HOUR_SECONDS,
  12 * HOUR_SECONDS,
  DAY_SECONDS,
  7 * DAY_SECONDS,
];
/** Roughly this many points per chart, whatever the range. */
const TARGET_POINTS = 60;
/** Ranges up to this long are drawn in buckets under an hour, from the raw records. */
const RAW_RANGE_MS = 6 * HOUR_SECONDS * 1000;
/** Ranges up to this long are drawn in buckets under a day, from the hourly rollups. */
const HOURLY_RANGE_MS = 2 * DAY_SECONDS * 1000;

/**
 * The bucket for a range: about TARGET_POINTS of them, but whole hours beyond six hours and whole
 * days (or weeks) beyond two days, so that a view reads the rollups and raw records only for the
 * partial hours at its ends (docs/dashboard.md, docs/usage.md "Reports at scale").
 */
export function usageBucketSeconds(from: Date, to: Date): number {
  const range = to.getTime() - from.getTime();
  const floor = range > HOURLY_RANGE_MS ? DAY_SECONDS : range > RAW_RANGE_MS ? HOUR_SECONDS : 0;
  const wanted = Math.max(range / 1000 / TARGET_POINTS, floor);
  return BUCKETS.find((bucket) => bucket >= wanted) ?? BUCKETS[BUCKETS.length - 1];
}

const BREAKDOWNS: UsageBreakdown[] = ['key', 'model', 'endpoint'];

/** Time series for the Usage page (rollups and raw records), and each key's last use for the Keys page. */
@Injectable()
export class DashboardUsageService {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The series per key, per model and per endpoint, each point in bucket order: one statement
   * whose grouping sets give each series its own rows, so the database sends one row per point
   * rather than one per bucket, key, model and endpoint. `keyIds`: only these keys' requests
   * count (the keys in a team admin's or a member's reach); null: every key's. With `endUser`,
   * that end user's requests only (their own daily rollup, docs/spend.md).
   */
  async series(
    from: Date,
    to: Date,
    bucketSeconds: number,
    keyIds: string[] | null,
    endUser?: string,
  ): Promise<Record<UsageBreakdown, Map<string, UsagePoint[]>>> {
    const depth =
      bucketSeconds % (7 * DAY_SECONDS) === 0
        ? 'weeks'
        : bucketSeconds % DAY_SECONDS === 0
          ? 'days'
          : bucketSeconds % HOUR_SECONDS === 0
            ? 'hours'
            : 'raw';
    const statement = rollupQuery(
      splitRange(from, to, depth),
      [bucketColumn(bucketSeconds), GROUP_COLUMNS.key, GROUP_COLUMNS.model, GROUP_COLUMNS.endpoint],
      [
        'requests',
        'failed',
        'aborted',
        'prompt_tokens',
        'completion_tokens',
        'latency_ms',
        'cost_usd',
        'unpriced_requests',
      ],
      { ...(keyIds ? { keyIds } : {}), endUser },
      [
        [0, 1],
        [0, 2],
        [0, 3],
      ],
    );
    const series: Record<UsageBreakdown, Map<string, UsagePoint[]>> = {
      key: new Map(),
      model: new Map(),
      endpoint: new Map(),
    };
    if (!statement) return series;
    // "g0" here is the bucket's ISO text, whose order is the time order.
    const rows = await runRollupQuery<Record<string, string | null> & { g0: string }>(
      this.prisma.pool,
      { sql: `${statement.sql} ORDER BY "g0"`, params: statement.params },
    );
    for (const row of rows) {
      // The one group a row's grouping set kept; key_id, model and endpoint are never NULL.
      const index = [row.g1, row.g2, row.g3].findIndex((group) => group !== null);
      const group = [row.g1, row.g2, row.g3][index]!;
      const points = series[BREAKDOWNS[index]].get(group) ?? [];
      series[BREAKDOWNS[index]].set(group, points);
      const requests = Number(row.requests);
      points.push({
        bucket: row.g0,
        requests,
        errors: Number(row.failed) + Number(row.aborted),
        promptTokens: Number(row.prompt_tokens),
        completionTokens: Number(row.completion_tokens),
        latencySum: Number(row.latency_ms),
        // Unknown, not zero, while no request of the point had a price.
        costUsd: requests > Number(row.unpriced_requests) ? trimDecimal(row.cost_usd!) : null,
      });
    }
    return series;
  }

  /**
   * Each key's latest request: per key, the newest entry of its (key_id, created_at) index, so the
   * cost is one index descent per key and partition however many requests a key has made.
   */
  async lastUsed(keyIds: string[]): Promise<Map<string, Date>> {
    if (keyIds.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<Array<{ key_id: string; last_used: Date }>>`
      SELECT k.id::text AS key_id, r.created_at AS last_used FROM unnest(${keyIds}::uuid[]) AS k(id)
        CROSS JOIN LATERAL (SELECT created_at FROM usage_records WHERE key_id = k.id
                             ORDER BY created_at DESC LIMIT 1) AS r`;
    return new Map(rows.map((row) => [row.key_id, row.last_used]));
  }
}
