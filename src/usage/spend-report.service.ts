import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

export const SPEND_GROUPS = ['key', 'team', 'model', 'deployment', 'day'] as const;
export type SpendGroupBy = (typeof SPEND_GROUPS)[number];

export interface SpendQuery {
  groupBy: SpendGroupBy;
  /** First day included, YYYY-MM-DD (UTC). */
  from?: string;
  /** First day excluded, YYYY-MM-DD (UTC). */
  to?: string;
  keyId?: string;
  teamId?: string;
  model?: string;
}

/** Totals of one group; '' is "no team" (group team) or "no deployment" (group deployment). */
export interface SpendGroup {
  group: string;
  requests: number;
  completed: number;
  failed: number;
  aborted: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** Exact decimal string of US dollars (priced requests only). */
  costUsd: string;
  /** Requests whose deployment had no price: their cost is unknown, not zero. */
  unpricedRequests: number;
}

// Column names are chosen from this map, never from input.
const GROUP_COLUMN: Record<SpendGroupBy, string> = {
  key: `"key_id"::text`,
  team: `"team_id"`,
  model: `"public_model"`,
  deployment: `"deployment"`,
  day: `to_char("day", 'YYYY-MM-DD')`,
};

interface RawGroup {
  group: string;
  requests: bigint;
  completed: bigint;
  failed: bigint;
  aborted: bigint;
  prompt_tokens: string;
  completion_tokens: string;
  cached_tokens: string;
  cache_write_tokens: string;
  reasoning_tokens: string;
  cost_usd: string;
  unpriced_requests: bigint;
}

/**
 * Spend per key, team, model, deployment or day, read from the daily rollups (usage_daily), so a
 * report costs one row per group and day however many requests there were (docs/spend.md).
 */
@Injectable()
export class SpendReport {
  constructor(private readonly prisma: PrismaService) {}

  async report(query: SpendQuery): Promise<SpendGroup[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (query.from) add(`"day" >= ?::date`, query.from);
    if (query.to) add(`"day" < ?::date`, query.to);
    if (query.keyId) add(`"key_id" = ?::uuid`, query.keyId);
    if (query.teamId) add(`"team_id" = ?`, query.teamId);
    if (query.model) add(`"public_model" = ?`, query.model);
    const rows = await this.prisma.$queryRawUnsafe<RawGroup[]>(
      `SELECT ${GROUP_COLUMN[query.groupBy]} AS "group",
              sum("requests")::bigint AS "requests", sum("completed")::bigint AS "completed",
              sum("failed")::bigint AS "failed", sum("aborted")::bigint AS "aborted",
              sum("prompt_tokens")::text AS "prompt_tokens",
              sum("completion_tokens")::text AS "completion_tokens",
              sum("cached_tokens")::text AS "cached_tokens",
              sum("cache_write_tokens")::text AS "cache_write_tokens",
              sum("reasoning_tokens")::text AS "reasoning_tokens",
              sum("cost_usd")::text AS "cost_usd",
              sum("unpriced_requests")::bigint AS "unpriced_requests"
         FROM "usage_daily"
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        GROUP BY 1 ORDER BY 1`,
      ...params,
    );
    return rows.map((row) => ({
      group: row.group,
      requests: Number(row.requests),
      completed: Number(row.completed),
      failed: Number(row.failed),
      aborted: Number(row.aborted),
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      cachedTokens: Number(row.cached_tokens),
      cacheWriteTokens: Number(row.cache_write_tokens),
      reasoningTokens: Number(row.reasoning_tokens),
      costUsd: trimDecimal(row.cost_usd),
      unpricedRequests: Number(row.unpriced_requests),
    }));
  }
}

/** "1.230000000000" -> "1.23": Postgres numeric text, shortened without any float. */
function trimDecimal(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
