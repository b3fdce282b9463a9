import type { DeploymentConfig } from '../../config/gateway-config.types';
import type {
  FinishReason,
  ToolCallDelta,
  TokenUsage,
  UpstreamChatRequest,
  UpstreamChatResult,
  UpstreamChoice,
  UpstreamStreamPart,
} from '../provider-adapter.interface';
import { estimateTokens } from '../../common/tokens/token-estimate';
import { UpstreamError } from '../../common/errors/upstream.error';
import { configuredHeaders } from '../configured-headers';

// Pure mappings between the gateway's adapter contract and the OpenAI wire format, kept free of
// I/O so they can be tested on plain objects.

const FINISH_REASONS: readonly FinishReason[] = [
  'stop',
  'length',
  'content_filter',
  'tool_calls',
  'function_call',
];

export function mapFinishReason(raw: unknown): FinishReason {
  return FINISH_REASONS.includes(raw as FinishReason) ? (raw as FinishReason) : 'stop';
}

export function buildRequestBody(
  request: UpstreamChatRequest,
  stream: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = Object.assign({}, request.parameters, {
    model: request.deployment.upstreamModel,
    messages: request.messages,
  });
  // /v1/messages may set Anthropic's top_k, which OpenAI's API refuses as an unknown argument.
  if (body.top_k !== undefined) delete body.top_k;
  if (stream) {
    body.stream = true;
    // Always ask for usage so the gateway knows what every stream cost, whatever the client asked.
    body.stream_options = { include_usage: true };
  }
  return body;
}

export function buildHeaders(
  deployment: DeploymentConfig,
  requestId: string,
): Record<string, string> {
  return Object.assign({}, configuredHeaders(deployment), {
    authorization: `Bearer ${deployment.apiKey}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-request-id': requestId,
  });
}

interface OpenAiUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: unknown } | null;
}

/** OpenAI's prompt_tokens includes the cached ones and completion_tokens the reasoning ones. */
export function mapUsage(usage: OpenAiUsage | null | undefined): TokenUsage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const promptTokens = Number(usage.prompt_tokens);
  const completionTokens = Number(usage.completion_tokens);
  if (!Number.isInteger(promptTokens) || !Number.isInteger(completionTokens)) return undefined;
  const cachedTokens = optionalCount(usage.prompt_tokens_details?.cached_tokens);
  const reasoningTokens = optionalCount(usage.completion_tokens_details?.reasoning_tokens);
  return {
    promptTokens,
    completionTokens,
    ...(cachedTokens !== undefined ? { cachedTokens } : {}),
    ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
  };
}

function optionalCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

export function mapCompletion(body: unknown, request: UpstreamChatRequest): UpstreamChatResult {
  const choices = (body as { choices?: Array<Record<string, any>> } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0)
    throw new UpstreamError('invalid_response', 'completion without choices[0].message');
  // Providers list choices by `index`; relayed in that order whatever order they came in.
  const mapped = [...choices]
    .sort((a, b) => (Number(a?.index) || 0) - (Number(b?.index) || 0))
    .map(mapChoice);
  const [first, ...more] = mapped;
  const generated = mapped
    .map((choice) => choice.content ?? JSON.stringify(choice.toolCalls))
    .join('');
  const usage = mapUsage((body as { usage?: OpenAiUsage }).usage) ?? {
    promptTokens: estimateTokens(JSON.stringify(request.messages)),
    completionTokens: estimateTokens(generated),
  };
  return Object.assign({}, first, more.length > 0 ? { moreChoices: more, usage } : { usage });
}

function mapChoice(choice: Record<string, any>): UpstreamChoice {
  const message = choice?.message;
  if (!message || typeof message !== 'object') {
    throw new UpstreamError('invalid_response', 'completion without choices[0].message');
  }
  const content = typeof message.content === 'string' ? message.content : null;
  const toolCalls =
    Array.isArray(message.tool_calls) && message.tool_calls.length > 0
      ? message.tool_calls
      : undefined;
  if (content === null && !toolCalls)
    throw new UpstreamError('invalid_response', 'message has neither content nor tool_calls');
  return {
    content,
    toolCalls,
    finishReason: mapFinishReason(choice.finish_reason),
    rawFinishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined,
    ...(choice.logprobs != null ? { logprobs: choice.logprobs } : {}),
  };
}

/** Maps one `data:` payload of an OpenAI stream to the parts it carries. */
export function mapStreamEvent(data: string): UpstreamStreamPart[] {
  let chunk: any;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new UpstreamError('invalid_response', `stream event is not JSON: ${data.slice(0, 200)}`);
  }
  if (chunk?.error) {
    throw new UpstreamError(
      'unavailable',
      `error event in stream: ${JSON.stringify(chunk.error).slice(0, 2000)}`,
    );
  }
  const parts: UpstreamStreamPart[] = [];
  // With n > 1 a chunk may carry any of the choices (usually one), each with its `index`.
  for (const choice of Array.isArray(chunk?.choices) ? chunk.choices : []) {
    const delta = choice?.delta ?? {};
    const content =
      typeof delta.content === 'string' && delta.content.length > 0 ? delta.content : undefined;
    const toolCalls = Array.isArray(delta.tool_calls)
      ? (delta.tool_calls as ToolCallDelta[])
      : undefined;
    const finished = typeof choice?.finish_reason === 'string' && choice.finish_reason.length > 0;
    const logprobs = choice?.logprobs ?? undefined;
    if (content !== undefined || toolCalls || finished || logprobs !== undefined) {
      const index =
        Number.isInteger(choice?.index) && choice.index > 0 ? (choice.index as number) : 0;
      // Built by assignment, not by spreading optional objects: this runs for every event.
      const part: UpstreamStreamPart & { type: 'delta' } = { type: 'delta', content, toolCalls };
      if (index > 0) part.choiceIndex = index;
      if (finished) {
        part.finishReason = mapFinishReason(choice.finish_reason);
        part.rawFinishReason = choice.finish_reason;
      }
      if (logprobs !== undefined) part.logprobs = logprobs;
      parts.push(part);
    }
  }
  const usage = mapUsage(chunk?.usage);
  if (usage) parts.push({ type: 'usage', usage });
  return parts;
}
