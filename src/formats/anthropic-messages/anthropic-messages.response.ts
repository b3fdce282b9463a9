import { randomHex12 } from '../../common/ids/random-hex';
import type { CanonicalAnswer } from '../../pipeline/canonical';
import type {
  FinishReason,
  TokenUsage,
  UpstreamChatResult,
} from '../../providers/provider-adapter.interface';
import type {
  AnthropicMessage,
  MessageUsage,
  ResponseContentBlock,
  StopReason,
} from './anthropic-messages.types';

// A translated deployment's answer -> an Anthropic message. Pure: no I/O.

/** `msg_` and 24 random hex characters: the gateway's own id, as chat answers have theirs. */
export function newMessageId(): string {
  return `msg_${randomHex12()}`;
}

/**
 * The JSON answer: a translated deployment's result as an Anthropic message, a pass-through
 * deployment's message as it came; either names the model the client asked for.
 */
export function toMessagesAnswer(answer: CanonicalAnswer, model: string): unknown {
  if (answer.type === 'native') return withClientModel(answer.body, model);
  return toAnthropicMessage(Object.assign({}, answer.result, { usage: answer.usage }), model);
}

export function toAnthropicMessage(result: UpstreamChatResult, model: string): AnthropicMessage {
  const content: ResponseContentBlock[] = [];
  if (result.content) content.push({ type: 'text', text: result.content });
  for (const call of result.toolCalls ?? []) content.push(toolUseBlock(call));
  return {
    id: newMessageId(),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason(
      result.finishReason,
      result.stopSequence,
      content.length > 0 && content[content.length - 1].type === 'tool_use',
    ),
    stop_sequence: result.stopSequence ?? null,
    usage: toMessageUsage(result.usage),
  };
}

interface ToolCallLike {
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

function toolUseBlock(call: unknown): ResponseContentBlock {
  const { id, function: fn } = (call ?? {}) as ToolCallLike;
  return {
    type: 'tool_use',
    id: String(id ?? ''),
    name: String(fn?.name ?? ''),
    input: parseToolInput(typeof fn?.arguments === 'string' ? fn.arguments : ''),
  };
}

/**
 * Tool arguments arrive as a JSON string; Anthropic's `input` is the parsed object. Empty
 * arguments are `{}`, as a tool without parameters gets; text that is not JSON is kept whole under
 * `_raw` rather than lost, and a stream gives the client the same text to parse.
 */
export function parseToolInput(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return { _raw: raw };
  }
}

const STOP_REASONS: Record<FinishReason, StopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/**
 * Some providers end a turn that called tools with a plain stop; agents such as Claude Code run
 * the tools only on `tool_use`, so an answer ending in a tool call says so.
 */
export function stopReason(
  finish: FinishReason | undefined,
  stopSequence: string | undefined,
  endsInToolUse: boolean,
): StopReason {
  if (stopSequence !== undefined) return 'stop_sequence';
  const reason = (finish && STOP_REASONS[finish]) || 'end_turn';
  return reason === 'end_turn' && endsInToolUse ? 'tool_use' : reason;
}

/**
 * The gateway counts cached prompt tokens inside its prompt total (docs/spend.md); Anthropic's
 * `input_tokens` leaves out the tokens read from or written to the cache, which it reports apart.
 */
export function toMessageUsage(usage: TokenUsage): MessageUsage {
  const cacheRead = usage.cachedTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.promptTokens - cacheRead - cacheWrite),
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}

/** A pass-through deployment's message as it came, naming the model the client asked for. */
export function withClientModel<T>(body: T, model: string): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  // Assigned over the copy: `model` keeps its place among the keys.
  return Object.assign({}, body, { model });
}
