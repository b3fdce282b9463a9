import type { DeploymentConfig } from '../../config/gateway-config.types';
import type {
  FinishReason,
  ToolCallDelta,
  TokenUsage,
  UpstreamChatRequest,
  UpstreamChatResult,
  UpstreamStreamPart,
} from '../provider-adapter.interface';
import { estimateTokens } from '../token-estimate';
import { UpstreamError } from '../upstream.error';

// Pure mappings between the gateway's adapter contract and the OpenAI wire format, kept free of
// I/O so they can be tested on plain objects.

const FINISH_REASONS: readonly FinishReason[] = ['stop', 'length', 'content_filter', 'tool_calls', 'function_call'];

export function mapFinishReason(raw: unknown): FinishReason {
  return FINISH_REASONS.includes(raw as FinishReason) ? (raw as FinishReason) : 'stop';
}

export function buildRequestBody(request: UpstreamChatRequest, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...request.parameters,
    model: request.deployment.upstreamModel,
    messages: request.messages,
  };
  if (stream) {
    body.stream = true;
    // Always ask for usage so the gateway knows what every stream cost, whatever the client asked.
    body.stream_options = { include_usage: true };
  }
  return body;
}

export function buildHeaders(deployment: DeploymentConfig, requestId: string): Record<string, string> {
  // Lower-cased so a configured `Authorization` can never ride along next to the real one.
  const configured = Object.fromEntries(Object.entries(deployment.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    ...configured,
    authorization: `Bearer ${deployment.apiKey}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-request-id': requestId,
  };
}

interface OpenAiUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
}

export function mapUsage(usage: OpenAiUsage | null | undefined): TokenUsage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const promptTokens = Number(usage.prompt_tokens);
  const completionTokens = Number(usage.completion_tokens);
  if (!Number.isInteger(promptTokens) || !Number.isInteger(completionTokens)) return undefined;
  return { promptTokens, completionTokens };
}


export function mapCompletion(body: unknown, request: UpstreamChatRequest): UpstreamChatResult {
  const choice = (body as { choices?: Array<Record<string, any>> } | null)?.choices?.[0];
  const message = choice?.message;
  if (!message || typeof message !== 'object') {
    throw new UpstreamError('invalid_response', 'completion without choices[0].message');
  }
  const content = typeof message.content === 'string' ? message.content : null;
  const toolCalls = Array.isArray(message.tool_calls) && message.tool_calls.length > 0 ? message.tool_calls : undefined;
  if (content === null && !toolCalls) throw new UpstreamError('invalid_response', 'message has neither content nor tool_calls');
  const usage = mapUsage((body as { usage?: OpenAiUsage }).usage) ?? {
    promptTokens: estimateTokens(JSON.stringify(request.messages)),
    completionTokens: estimateTokens(content ?? JSON.stringify(toolCalls)),
  };
  return {
    content,
    toolCalls,
    finishReason: mapFinishReason(choice.finish_reason),
    rawFinishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined,
    usage,
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
    throw new UpstreamError('unavailable', `error event in stream: ${JSON.stringify(chunk.error).slice(0, 2000)}`);
  }
  const parts: UpstreamStreamPart[] = [];
  const choice = Array.isArray(chunk?.choices) ? chunk.choices[0] : undefined;
  if (choice) {
    const delta = choice.delta ?? {};
    const content = typeof delta.content === 'string' && delta.content.length > 0 ? delta.content : undefined;
    const toolCalls = Array.isArray(delta.tool_calls) ? (delta.tool_calls as ToolCallDelta[]) : undefined;
    const finished = typeof choice.finish_reason === 'string' && choice.finish_reason.length > 0;
    if (content !== undefined || toolCalls || finished) {
      parts.push({
        type: 'delta',
        content,
        toolCalls,
        ...(finished ? { finishReason: mapFinishReason(choice.finish_reason), rawFinishReason: choice.finish_reason } : {}),
      });
    }
  }
  const usage = mapUsage(chunk?.usage);
  if (usage) parts.push({ type: 'usage', usage });
  return parts;
}
