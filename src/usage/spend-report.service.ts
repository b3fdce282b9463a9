import { Injectable } from '@nestjs/common';
import { trimDecimal } from '../common/money/decimal';
import { PrismaService } from '../database/prisma.service';
import { compareText, DAY_MS, DEFAULT_REPORT_DAYS, dayOf, splitRange } from './report-range';
import { GROUP_COLUMNS, rollupQuery, runRollupQuery } from './rollup-query';

export const SPEND_GROUPS = ['key', 'team', 'model', 'deployment', 'day', 'end_user'] as const;
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
] as const;

/**
 * Spend per key, team, model, deployment or day over whole UTC days, read from the weekly and
 * daily rollups, so a report costs one row per group and week (or day) however many requests
 * there were (docs/spend.md). Per end user, from the end users' daily rollup: only the requests
 * that named one. Bounded: without `from` it covers DEFAULT_REPORT_DAYS before `to` (default:
 * through today).
 */
@Injectable()
export class SpendReport {
  constructor(private readonly prisma: PrismaService) {}

  async report(query: SpendQuery): Promise<{ from: string; to: string; groups: SpendGroup[] }> {
    const to = query.to ?? dayOf(Date.now() + DAY_MS);
    const from = query.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - DEFAULT_REPORT_DAYS * DAY_MS);
    const statement = rollupQuery(
      splitRange(
        new Date(`${from}T00:00:00Z`),
        new Date(`${to}T00:00:00Z`),
        query.groupBy === 'day' ? 'days' : 'weeks',
      ),
      [GROUP_COLUMNS[query.groupBy]],
      MEASURES,
      { keyId: query.keyId, teamId: query.teamId, model: query.model },
    );
    const rows = statement
      ? await runRollupQuery<Record<string, string>>(this.prisma.pool, statement)
      : [];
    const groups = rows.map((row) => ({
      group: row.g0,
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
    // In group order, the same on every machine (pages' cursors depend on it).
    groups.sort((a, b) => compareText(a.group, b.group));
    return { from, to, groups };
  }
}
