/** Every `provider` value a deployment may name; each has a folder in src/providers/. */
export const PROVIDER_NAMES = ['openai', 'anthropic', 'gemini', 'mock'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** What a deployment serves: `/v1/chat/completions` or `/v1/embeddings`. */
export const DEPLOYMENT_TYPES = ['chat', 'embedding'] as const;
export type DeploymentType = (typeof DEPLOYMENT_TYPES)[number];

/** Anthropic requires max_tokens; sent when neither the client nor `default_max_tokens` sets one. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

export interface MockSettings {
  /** Delay before the answer (non-streaming) or the first chunk (streaming). */
  latencyMs: number;
  /** Pause between streamed chunks. */
  chunkDelayMs: number;
  /** How many content chunks a streamed answer has at most. */
  chunkCount: number;
}

import type { Price } from '../common/money/price';
import type { ModelAliases } from './model-aliases';

export interface DeploymentConfig {
  /** Stable name used in logs and usage records, e.g. `alpha-k3/0`. */
  name: string;
  publicModel: string;
  provider: ProviderName;
  /** Shared by all deployments of one public model (the loader checks it). */
  type: DeploymentType;
  baseUrl?: string;
  apiKey?: string;
  upstreamModel?: string;
  /** Share of the model's load among its deployments (default 1); 0 marks a standby. */
  weight?: number;
  /**
   * Deadline of one attempt's whole non-streamed answer, counted from the attempt's start (the
   * wait for a concurrency slot included); also the longest silence allowed between body chunks.
   */
  timeoutMs: number;
  /** Deadline of one attempt's first streamed token, counted from the attempt's start. */
  firstTokenTimeoutMs: number;
  /** At most this many requests in flight to the deployment (per gateway instance); null: no limit. */
  maxConcurrency: number | null;
  /** Longest wait for a free slot under maxConcurrency before the request is refused (503). */
  maxQueueMs: number;
  headers: Record<string, string>;
  /** Anthropic: max_tokens when the request has none (`default_max_tokens`). */
  defaultMaxTokens: number;
  /**
   * Anthropic pass-through: the `anthropic-beta` values a client may send this deployment
   * (`anthropic_beta`); undefined forwards the header as sent.
   */
  anthropicBeta?: readonly string[];
  /** `price`, per token; null when the deployment declares none (costs unknown). */
  price?: Price | null;
  mock: MockSettings;
}

export interface GatewayConfig {
  /** Public model name -> deployments (routing: DeploymentRouter). */
  models: Map<string, DeploymentConfig[]>;
  /**
   * Public model name -> its `request_timeout_ms`, for the models that set one: all attempts and
   * backoffs of a request together, from its arrival (REQUEST_TIMEOUT_MS otherwise).
   */
  requestTimeouts: Map<string, number>;
  /** Other names for the public models (`aliases:`); none when absent. */
  aliases?: ModelAliases;
  source: 'file' | 'embedded-defaults';
}

export const PUBLIC_MODELS = ['alpha-k3', 'beta-v4-pro-0813', 'beta-v4-flash-0731'] as const;
