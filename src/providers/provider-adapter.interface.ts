import type { TokenUsage } from '../common/tokens/token-usage';
import type { DeploymentConfig } from '../config/gateway-config.types';
import type { UpstreamSignal } from './attempt-signal';

// Re-exported: the usage shape adapters report lives in common, where the cost is computed from it.
export type { TokenUsage };

export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls' | 'function_call';

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

/**
 * One part of an array `content`, as OpenAI defines it: `text` and `refusal` carry text, the
 * others (`image_url`, `input_audio`, `file`) an object. Parts reach OpenAI-compatible providers
 * exactly as the client sent them.
 */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'refusal'; refusal: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: string } }
  | { type: 'file'; file: { file_data?: string; file_id?: string; filename?: string } };

export type MessageContent = string | ContentPart[];

/** An OpenAI-format message after validation; extra fields are the ones the matrix passes. */
export interface ChatTurn {
  role: string;
  content: MessageContent | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: unknown[];
  /** Legacy assistant turn that called a function (answered by a `function` turn). */
  function_call?: unknown;
}

export interface UpstreamChatRequest {
  deployment: DeploymentConfig;
  messages: ChatTurn[];
  /** Optional OpenAI fields the compatibility matrix passes through, already filtered. */
  parameters: Record<string, unknown>;
  /** Aborted when the client disconnects; adapters must stop all upstream I/O on it. */
  signal: UpstreamSignal;
  requestId: string;
}

/** One choice of an answer. */
export interface UpstreamChoice {
  content: string | null;
  toolCalls?: unknown[];
  finishReason: FinishReason;
  /** The provider's own finish reason, kept for logs. */
  rawFinishReason?: string;
  /** The stop sequence that ended the answer, from providers that say which one matched. */
  stopSequence?: string;
  /** OpenAI's `choices[].logprobs` object, relayed as is (only when the client asked for logprobs). */
  logprobs?: unknown;
}

/** The first choice's fields, and the others when the client asked for `n` > 1. */
export interface UpstreamChatResult extends UpstreamChoice {
  /** choices[1..n-1], in order; absent for a single choice. */
  moreChoices?: UpstreamChoice[];
  usage: TokenUsage;
}

/**
 * One upstream event's worth of output. A finish reason rides on the delta it came with, so a
 * provider that ends on its last content chunk is relayed the same way.
 */
export type UpstreamStreamPart =
  | {
      type: 'delta';
      /** Which choice the delta belongs to when `n` > 1; 0 when absent. */
      choiceIndex?: number;
      content?: string;
      toolCalls?: ToolCallDelta[];
      finishReason?: FinishReason;
      rawFinishReason?: string;
      /** With the finish reason: the stop sequence that matched, where the provider says. */
      stopSequence?: string;
      /** The chunk's `choices[].logprobs`, relayed as is. */
      logprobs?: unknown;
    }
  | { type: 'usage'; usage: TokenUsage };

/**
 * The parts of one upstream read, in order, never empty. A provider sends many events per socket
 * read when the gateway is busy (a whole short answer often arrives at once): handing them on
 * together lets every layer down to the socket write take one step per read instead of one per
 * event.
 */
export type UpstreamStreamBatch = readonly UpstreamStreamPart[];

export interface ProviderAdapter {
  /** The `provider` value in the gateway config that selects this adapter. */
  readonly provider: string;
  complete(request: UpstreamChatRequest): Promise<UpstreamChatResult>;
  /**
   * Resolves once the upstream has answered 2xx; errors before that reject the promise, errors
   * after it are thrown by the iterator, after the batch of parts that came before them. Both
   * are UpstreamError. Ending the iteration early (return()) must abort the upstream request.
   * The HTTP adapters read their SSE bodies with UpstreamHttpClient.postSse (readUpstreamSse) and
   * a per-stream SseEventMapper of their own: one async generator step per socket read.
   */
  stream(request: UpstreamChatRequest): Promise<AsyncIterable<UpstreamStreamBatch>>;
  /**
   * The completion cap this adapter sends a deployment when the request sets none, for a provider
   * that needs one (Anthropic's `max_tokens`). A dollar hold covers that many output tokens
   * (docs/spend.md); without this method the provider decides and the hold uses its default.
   */
  impliedMaxTokens?(deployment: DeploymentConfig): number;
  /** Pass-through for bodies in this provider's own format; without it they are translated. */
  readonly native?: NativeAdapter;
  /** Embeddings (`type: embedding` deployments); a provider without it cannot serve them. */
  embed?(request: UpstreamEmbedRequest): Promise<UpstreamEmbedResult>;
}

/** One embedding input: a text, or a text already split into the model's token ids. */
export type EmbedInput = string | number[];

export interface UpstreamEmbedRequest {
  deployment: DeploymentConfig;
  /** At least one, in the client's order. */
  inputs: EmbedInput[];
  /** Length of each vector the client asked for (OpenAI `dimensions`). */
  dimensions?: number;
  /** The client's end-user id, forwarded to providers that take one. */
  user?: string;
  signal: UpstreamSignal;
  requestId: string;
}

/** One float vector per input, in input order; `completionTokens` is always 0. */
export interface UpstreamEmbedResult {
  vectors: number[][];
  usage: TokenUsage;
}

/**
 * A body in the provider's own wire format, sent on unchanged but for `model` (pass-through: an
 * Anthropic Messages client and an Anthropic deployment). Fields the gateway does not know, and
 * signatures it must not alter, survive because the body is never translated.
 */
export interface NativeUpstreamRequest {
  deployment: DeploymentConfig;
  /** The client's JSON body; the adapter sets `model` to the deployment's. */
  body: Record<string, unknown>;
  /** Client headers the ingress format forwards (e.g. `anthropic-beta`). */
  headers: Record<string, string>;
  signal: UpstreamSignal;
  requestId: string;
}

/** A pass-through answer: the provider's JSON as it came, and the usage read from it. */
export interface NativeAnswer {
  body: unknown;
  usage: TokenUsage;
}

/**
 * One provider SSE event of a pass-through stream, relayed as it came, or the usage read from
 * the events (a stream cut short is charged from `outputChars` when no usage arrived).
 */
export type NativeStreamPart =
  | { type: 'native'; event?: string; data: string; outputChars?: number }
  | { type: 'usage'; usage: TokenUsage };

/** What a provider offers a client that already speaks its wire format. */
export interface NativeAdapter {
  complete(request: NativeUpstreamRequest): Promise<NativeAnswer>;
  /** As ProviderAdapter.stream: resolves on a 2xx, one batch per socket read, never empty. */
  stream(request: NativeUpstreamRequest): Promise<AsyncIterable<readonly NativeStreamPart[]>>;
  /** The prompt's tokens as the provider counts them (Anthropic's count_tokens), if it can. */
  countTokens?(request: NativeUpstreamRequest): Promise<number>;
}

// Interface and DI token share a name, as ThrottlerStorage does.
export const ProviderAdapter = Symbol('ProviderAdapter');
