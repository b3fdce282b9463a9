import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import { splitRange } from '../usage/report-range';
import { bucketColumn, GROUP_COLUMNS, rollupQuery, runRollupQuery } from '../usage/rollup-query';

export interface UsageBucketRow {
  bucket: Date;
  keyId: string;
  model: string;
  /** The API the requests came in by (chat_completions, messages, responses). */
  endpoint: string;
  requests: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  latencySum: number;
  /** Exact decimal string of US dollars; null when no request of the row had a price. */
  costUsd: string | null;
}

const DAY_SECONDS = 86_400;
const BUCKETS = [
  60,
  300,
  900,
  1800,
  3600,
  3 * 3600,
  6 * 3600,
  12 * 3600,
  DAY_SECONDS,
  7 * DAY_SECONDS,
];
/** Roughly this many points per chart, whatever the range. */
const TARGET_POINTS = 60;
/** Ranges up to this long are drawn in buckets under a day, from the raw records. */
const RAW_RANGE_MS = 2 * DAY_SECONDS * 1000;

/**
 * The bucket for a range: about TARGET_POINTS of them, but whole days (or weeks) beyond two days,
 * so that a long view reads the daily or weekly rollups and raw records only for its partial
 * days (docs/dashboard.md, docs/usage.md "Reports at scale").
 */
export function usageBucketSeconds(from: Date, to: Date): number {
  const range = to.getTime() - from.getTime();
  const wanted = Math.max(range / 1000 / TARGET_POINTS, range > RAW_RANGE_MS ? DAY_SECONDS : 0);
  return BUCKETS.find((bucket) => bucket >= wanted) ?? BUCKETS[BUCKETS.length - 1];
}

/** Time series for the Usage page (rollups and raw records), and each key's last use for the Keys page. */
@Injectable()
export class DashboardUsageService {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One row per time bucket, key, model and endpoint, in bucket order; the database groups. With
   * `endUser`, that end user's requests only (their own daily rollup, docs/spend.md).
   */
  async buckets(
    from: Date,
    to: Date,
    bucketSeconds: number,
    endUser?: string,
  ): Promise<UsageBucketRow[]> {
    const depth =
      bucketSeconds % (7 * DAY_SECONDS) === 0
        ? 'weeks'
        : bucketSeconds % DAY_SECONDS === 0
          ? 'days'
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
      { endUser },
    );
    if (!statement) return [];
    const rows = await runRollupQuery<Record<string, string> & { g0: Date }>(this.prisma.pool, {
      sql: `${statement.sql} ORDER BY "g0"`,
      params: statement.params,
    });
    return rows.map((row) => {
      const requests = Number(row.requests);
      return {
        bucket: row.g0,
        keyId: row.g1,
        model: row.g2,
        endpoint: row.g3,
        requests,
        errors: Number(row.failed) + Number(row.aborted),
        promptTokens: Number(row.prompt_tokens),
        completionTokens: Number(row.completion_tokens),
        latencySum: Number(row.latency_ms),
        // Unknown, not zero, while no request of the row had a price.
        costUsd: requests > Number(row.unpriced_requests) ? row.cost_usd : null,
      };
    });
  }

  async lastUsed(keyIds: string[]): Promise<Map<string, Date>> {
    if (keyIds.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<Array<{ key_id: string; last_used: Date }>>`
      SELECT key_id::text AS key_id, max(created_at) AS last_used FROM usage_records WHERE key_id = ANY(${keyIds}::uuid[]) GROUP BY key_id`;
    return new Map(rows.map((row) => [row.key_id, row.last_used]));
  }
}
