import { tokenCount } from '../chat-input';
import type { FinishReason, TokenUsage, UpstreamChatResult } from '../provider-adapter.interface';
import { UpstreamError } from '../../common/errors/upstream.error';

// Anthropic Messages response -> the adapter contract. Pure: no I/O.

export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

const FINISH_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  // The server paused a long-running turn; what was produced so far is a complete answer to relay.
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function mapAnthropicStopReason(raw: unknown): FinishReason {
  return (typeof raw === 'string' && FINISH_REASONS[raw]) || 'stop';
}

/**
 * Anthropic's `input_tokens` leaves out the tokens read from or written to the prompt cache;
 * OpenAI's `prompt_tokens` includes cached ones. All three are added so the prompt count means
 * the same for every provider, and the two cache shares are kept as token classes (priced as
 * cached_input and cache_write, docs/spend.md). Anthropic reports no separate thinking count.
 */
export function mapAnthropicUsage(usage: AnthropicUsage | null | undefined): TokenUsage {
  const cachedTokens = tokenCount(usage?.cache_read_input_tokens);
  const cacheWriteTokens = tokenCount(usage?.cache_creation_input_tokens);
  return {
    promptTokens: tokenCount(usage?.input_tokens) + cachedTokens + cacheWriteTokens,
    completionTokens: tokenCount(usage?.output_tokens),
    ...(typeof usage?.cache_read_input_tokens === 'number' ? { cachedTokens } : {}),
    ...(typeof usage?.cache_creation_input_tokens === 'number' ? { cacheWriteTokens } : {}),
  };
}

interface AnthropicResponseBlock {
  type?: string;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
}

export function mapAnthropicResponse(body: unknown): UpstreamChatResult {
  const message = body as {
    content?: unknown;
    stop_reason?: unknown;
    usage?: AnthropicUsage;
  } | null;
  if (!message || typeof message !== 'object' || !Array.isArray(message.content)) {
    throw new UpstreamError('invalid_response', 'Anthropic message without a content array');
  }
  const blocks = message.content as AnthropicResponseBlock[];
  const texts = blocks
    .filter((block) => block?.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string);
  // thinking and redacted_thinking blocks are not part of the OpenAI answer and are left out.
  const toolCalls = blocks
    .filter(
      (block) =>
        block?.type === 'tool_use' &&
        typeof block.id === 'string' &&
        typeof block.name === 'string',
    )
    .map((block) => ({
      id: block.id as string,
      type: 'function' as const,
      function: { name: block.name as string, arguments: JSON.stringify(block.input ?? {}) },
    }));
  const rawFinishReason = typeof message.stop_reason === 'string' ? message.stop_reason : undefined;
  return {
    // An empty answer (the model said nothing) is an empty string, not a missing message.
    content: texts.length > 0 ? texts.join('') : toolCalls.length > 0 ? null : '',
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    finishReason: mapAnthropicStopReason(message.stop_reason),
    rawFinishReason,
    usage: mapAnthropicUsage(message.usage),
  };
}
