import type { UsageStatus } from '../generated/prisma/client';

/** One usage row as written to usage_records. */
export interface UsageRow {
  id: string;
  createdAt: Date;
  requestId: string;
  keyId: string;
  /** The API the request came in by (CompletionOutcome.endpoint). */
  endpoint: string;
  publicModel: string;
  deployment: string | null;
  status: UsageStatus;
  httpStatus: number;
  errorCode: string | null;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
  /** Exact decimal string of US dollars; null when the deployment has no price. */
  costUsd: string | null;
  priceVersion: string | null;
  teamId: string | null;
  latencyMs: number;
  /** The end user the request was made for (CompletionOutcome.endUser); null when none. */
  endUser: string | null;
}

export type UsageGroupBy = 'key' | 'model';

export interface UsageQuery {
  groupBy: UsageGroupBy;
  keyId?: string;
  model?: string;
  /** Inclusive lower bound of created_at. */
  from?: Date;
  /** Exclusive upper bound of created_at. */
  to?: Date;
}

export interface UsageTotals {
  requests: number;
  completed: number;
  failed: number;
  aborted: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  avgLatencyMs: number;
}

/** Totals for one key (group `key`: its id) or one public model (group `model`). */
export interface UsageGroup extends UsageTotals {
  group: string;
}
