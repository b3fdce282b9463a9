import type { Endpoint } from '../usage/completion-outcome';
import type {
  DeploymentConfig,
  DeploymentType,
  ProviderName,
} from '../config/gateway-config.types';
import type {
  EmbedInput,
  ChatTurn,
  NativeStreamPart,
  TokenUsage,
  UpstreamChatResult,
  UpstreamStreamPart,
} from '../providers/provider-adapter.interface';

// The pipeline's interface to the wire formats (src/formats/*). A format maps its request body
// to a CanonicalRequest, hands it to Pipeline.complete() or Pipeline.stream(), and maps what
// comes back to its own JSON or events. The canonical conversation is the chat-completions one
// (ChatTurn, OpenAI parameter names) because every provider adapter translates from it.

export type { ChatTurn, Endpoint, TokenUsage };

export interface CanonicalRequest {
  /** The wire format's endpoint, as the usage row, the metrics and the log line name it. */
  endpoint: Endpoint;
  /**
   * The model the client named. The pipeline routes, limits and accounts the request by its
   * public model: the same name, or the model it is an alias of (`aliases:` in GATEWAY_CONFIG).
   */
  model: string;
  messages: ChatTurn[];
  /** Optional generation settings by their chat-completions names, validated by the format. */
  parameters: Record<string, unknown>;
  /**
   * The client's body in a provider's own format. A deployment of that provider whose adapter
   * offers pass-through (`ProviderAdapter.native`) receives it unchanged but for `model`; the
   * others get `messages` and `parameters`. Chosen per attempt, so failover may mix the two.
   */
  native?: NativeRequest;
  /** The deployment type that serves the request's endpoint; `chat` when absent. */
  type?: DeploymentType;
  /** The prompt's token count when the format knows it (embeddings), instead of an estimate. */
  promptTokens?: number;
  /**
   * The end user the body names (`user`, `metadata.user_id`), checked by the format with
   * endUserId(); the x-gateway-end-user header (PipelineContext.endUser) wins over it.
   */
  endUser?: string;
}

export interface NativeRequest {
  provider: ProviderName;
  body: Record<string, unknown>;
  /** Client headers forwarded to a pass-through deployment (e.g. `anthropic-beta`). */
  headers: Record<string, string>;
}

/** What Pipeline.complete() answers: the deployment's result and what it cost. */
export type CanonicalAnswer = (
  | { type: 'chat'; result: UpstreamChatResult }
  /** A pass-through deployment's JSON as it came (`model` is the deployment's). */
  | { type: 'native'; body: unknown }
) & {
  usage: TokenUsage;
  deployment: DeploymentConfig;
};

/** A text / tool-call delta (or finish) of one choice. */
export type CanonicalDelta = Extract<UpstreamStreamPart, { type: 'delta' }>;
/** A pass-through deployment's SSE event, relayed as it came. */
export type CanonicalNativeEvent = Extract<NativeStreamPart, { type: 'native' }>;
export type CanonicalStreamEvent = CanonicalDelta | CanonicalNativeEvent;

/**
 * The events of one upstream read, in order, never empty: a format encodes a batch in one go
 * and the SSE writer sends it in one write. Usage never appears here; it arrives in StreamEnd.
 */
export type CanonicalBatch = readonly CanonicalStreamEvent[];

/** How a stream that ran to its end ended: the usage it is charged (estimated if unreported). */
export interface StreamEnd {
  usage: TokenUsage;
  deployment: DeploymentConfig;
}

/**
 * What Pipeline.stream() hands out once the first event is in: the batches, then `done` with a
 * StreamEnd as the iterator's return value. A failure after the first batch is thrown by next();
 * return() (the client left) closes the upstream and records the outcome.
 */
export type CanonicalStream = AsyncIterator<CanonicalBatch, StreamEnd>;

/** An embeddings request, as the embeddings format hands it to Pipeline.embed(). */
export interface CanonicalEmbedRequest {
  model: string;
  inputs: EmbedInput[];
  dimensions?: number;
  user?: string;
}

/** What Pipeline.embed() answers: one float vector per input, in input order. */
export interface CanonicalEmbeddings {
  vectors: number[][];
  usage: TokenUsage;
  deployment: DeploymentConfig;
}
