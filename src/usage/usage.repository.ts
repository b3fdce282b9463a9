import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma, UsageStatus } from '../generated/prisma/client';
import type { UsageQuery, UsageRow } from './usage.types';

export interface UsageCount {
  group: string;
  status: UsageStatus;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

const COLUMNS = `"id", "created_at", "request_id", "key_id", "public_model", "deployment", "status",
  "http_status", "error_code", "stream", "prompt_tokens", "completion_tokens", "cached_tokens",
  "cache_write_tokens", "reasoning_tokens", "cost_usd", "price_version", "team_id", "latency_ms",
  "endpoint"`;

/**
 * One statement inserts the batch and adds the rows it really inserted (RETURNING skips the
 * duplicates of a retried batch) to the daily rollups, so rollups and raw records always agree
 * (docs/spend.md, "Spend reports and retention"). Days are UTC. Rollup rows are upserted in key
 * order, so instances flushing at the same time lock them in the same order and cannot deadlock.
 */
const INSERT_BATCH = `
WITH inserted AS (
  INSERT INTO "usage_records" (${COLUMNS})
  SELECT ${COLUMNS}
  FROM jsonb_to_recordset($1::jsonb) AS r("id" uuid, "created_at" timestamptz, "request_id" text, "key_id" uuid,
    "public_model" text, "deployment" text, "status" "usage_status", "http_status" integer, "error_code" text,
    "stream" boolean, "prompt_tokens" integer, "completion_tokens" integer, "cached_tokens" integer,
    "cache_write_tokens" integer, "reasoning_tokens" integer, "cost_usd" numeric, "price_version" text,
    "team_id" uuid, "latency_ms" integer, "endpoint" text)
  ON CONFLICT DO NOTHING
  RETURNING *
)
INSERT INTO "usage_daily" AS d ("day", "key_id", "team_id", "public_model", "deployment", "requests",
  "completed", "failed", "aborted", "prompt_tokens", "completion_tokens", "cached_tokens",
  "cache_write_tokens", "reasoning_tokens", "cost_usd", "unpriced_requests", "latency_ms")
SELECT ("created_at" AT TIME ZONE 'UTC')::date, "key_id", COALESCE("team_id"::text, ''), "public_model",
  COALESCE("deployment", ''), count(*), count(*) FILTER (WHERE "status" = 'completed'),
  count(*) FILTER (WHERE "status" = 'failed'), count(*) FILTER (WHERE "status" = 'aborted'),
  sum("prompt_tokens"), sum("completion_tokens"), COALESCE(sum("cached_tokens"), 0),
  COALESCE(sum("cache_write_tokens"), 0), COALESCE(sum("reasoning_tokens"), 0),
  COALESCE(sum("cost_usd"), 0), count(*) FILTER (WHERE "cost_usd" IS NULL), sum("latency_ms")
FROM inserted
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
ON CONFLICT ("day", "key_id", "team_id", "public_model", "deployment") DO UPDATE SET
  "requests" = d."requests" + EXCLUDED."requests",
  "completed" = d."completed" + EXCLUDED."completed",
  "failed" = d."failed" + EXCLUDED."failed",
  "aborted" = d."aborted" + EXCLUDED."aborted",
  "prompt_tokens" = d."prompt_tokens" + EXCLUDED."prompt_tokens",
  "completion_tokens" = d."completion_tokens" + EXCLUDED."completion_tokens",
  "cached_tokens" = d."cached_tokens" + EXCLUDED."cached_tokens",
  "cache_write_tokens" = d."cache_write_tokens" + EXCLUDED."cache_write_tokens",
  "reasoning_tokens" = d."reasoning_tokens" + EXCLUDED."reasoning_tokens",
  "cost_usd" = d."cost_usd" + EXCLUDED."cost_usd",
  "unpriced_requests" = d."unpriced_requests" + EXCLUDED."unpriced_requests",
  "latency_ms" = d."latency_ms" + EXCLUDED."latency_ms"`;

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
    // client's per-query work (about 4 % of a request's CPU, docs/performance.md, "Fourteenth pass").
    await this.prisma.pool.query(INSERT_BATCH, [JSON.stringify(rows.map(toRecord))]);
  }

  /** Counts and sums per group and status; the caller folds the statuses together. */
  async countByGroupAndStatus(query: UsageQuery): Promise<UsageCount[]> {
    const where: Prisma.UsageRecordWhereInput = {
      keyId: query.keyId,
      publicModel: query.model,
      createdAt: { gte: query.from, lt: query.to },
    };
    const aggregates = {
      _count: { _all: true },
      _sum: { promptTokens: true, completionTokens: true, latencyMs: true },
    } as const;
    const rows =
      query.groupBy === 'key'
        ? (
            await this.prisma.usageRecord.groupBy({ by: ['keyId', 'status'], where, ...aggregates })
          ).map((row) => Object.assign(row, { group: row.keyId }))
        : (
            await this.prisma.usageRecord.groupBy({
              by: ['publicModel', 'status'],
              where,
              ...aggregates,
            })
          ).map((row) => Object.assign(row, { group: row.publicModel }));
    return rows.map((row) => ({
      group: row.group,
      status: row.status,
      requests: row._count._all,
      promptTokens: row._sum.promptTokens ?? 0,
      completionTokens: row._sum.completionTokens ?? 0,
      latencyMs: row._sum.latencyMs ?? 0,
    }));
  }
}
