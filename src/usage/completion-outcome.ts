import type { TokenUsage } from '../providers/provider-adapter.interface';

export type OutcomeStatus = 'completed' | 'failed' | 'aborted';

/** The API a request came in by, one per wire format (usage rows, metrics and logs name it). */
export type Endpoint = 'chat_completions' | 'messages' | 'responses' | 'embeddings';

/** What one request cost and how it ended; written to the log and, as one row, to usage_records. */
export interface CompletionOutcome {
  requestId: string;
  keyId: string;
  endpoint: Endpoint;
  publicModel: string;
  deployment: string | null;
  status: OutcomeStatus;
  httpStatus: number;
  stream: boolean;
  usage: TokenUsage;
  /** What the usage cost at the deployment's price; null when it has none (docs/spend.md). */
  cost: { usd: string; priceVersion: string } | null;
  /** The key's team, if any. */
  teamId?: string | null;
  /**
   * The end user the request was made for (docs/spend.md, "Spend by end user"): stored on the
   * usage record, never a metrics label (unbounded).
   */
  endUser?: string | null;
  latencyMs: number;
  /** Upstream calls made (failover and retries included); 0 when none was. */
  attempts: number;
  errorCode?: string;
}
