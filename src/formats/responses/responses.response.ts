import type { GatewayException } from '../../common/errors/gateway.exception';
import { randomHex12 } from '../../common/ids/random-hex';
import type {
  FinishReason,
  TokenUsage,
  UpstreamChatResult,
} from '../../providers/provider-adapter.interface';
import { customCallInput } from './custom-tools';
import { newItemId } from './response-ids';
import type {
  CreateResponseDto,
  ItemStatus,
  OutputItem,
  OutputMessage,
  ResponseObject,
  ResponseUsage,
} from './responses.types';

// A provider's answer -> the response object. Pure: no I/O.

export interface ResponseIdentity {
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** As the client sent it (an alias stays an alias). */
  model: string;
  /** Whether it is being stored: false when the request said so or the store is off. */
  store: boolean;
}

/** The response before any output: what response.created carries, and what the rest builds on. */
export function responseSkeleton(
  request: CreateResponseDto,
  identity: ResponseIdentity,
): ResponseObject {
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    status: 'in_progress',
    background: false,
    completed_at: null,
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: identity.model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: request.reasoning ?? { effort: null, summary: null },
    store: identity.store,
    temperature: request.temperature ?? null,
    text: request.text ?? { format: { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools,
    top_p: request.top_p ?? null,
    truncation: 'disabled',
    usage: null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}

/** `incomplete` when the output was cut (max_output_tokens, a content filter). */
export function finishedStatus(
  finishReason: FinishReason | undefined,
): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finishReason === 'length')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The finished response: the skeleton with its output, status and usage. */
export function finishedResponse(
  skeleton: ResponseObject,
  output: OutputItem[],
  finishReason: FinishReason | undefined,
  usage: TokenUsage,
): ResponseObject {
  const finished = finishedStatus(finishReason);
  return {
    ...skeleton,
    ...finished,
    completed_at: finished.status === 'completed' ? Math.floor(Date.now() / 1000) : null,
    output,
    output_text: outputText(output),
    usage: toWireUsage(usage),
  };
}

/** A response that failed after it began: its output so far, and the error in place of usage. */
export function failedResponse(
  skeleton: ResponseObject,
  output: OutputItem[],
  error: GatewayException,
): ResponseObject {
  return {
    ...skeleton,
    status: 'failed',
    output,
    output_text: outputText(output),
    error: { code: error.code, message: error.message },
  };
}

function outputText(output: OutputItem[]): string {
  let text = '';
  for (const item of output) if (item.type === 'message') text += item.content[0].text;
  return text;
}

/** The output items of a whole answer: its text as one message, then its calls in order. */
export function outputItemsOf(
  result: Pick<UpstreamChatResult, 'content' | 'toolCalls' | 'finishReason'>,
  customNames: ReadonlySet<string>,
): OutputItem[] {
  const items: OutputItem[] = [];
  const calls = result.toolCalls ?? [];
  const status: ItemStatus =
    finishedStatus(result.finishReason).status === 'completed' ? 'completed' : 'incomplete';
  if ((result.content !== null && result.content !== '') || calls.length === 0)
    items.push(outputMessage(newItemId('message'), result.content ?? '', status));
  for (const call of calls) {
    const { callId, name, argumentsText } = readToolCall(call);
    items.push(callItem(callId, name, argumentsText, customNames));
  }
  return items;
}

export function outputMessage(id: string, text: string, status: ItemStatus): OutputMessage {
  return {
    type: 'message',
    id,
    role: 'assistant',
    status,
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

/**
 * A finished call: custom_tool_call when it names a custom tool, function_call otherwise. `id`
 * is the item's own (a stream announced it before the call was complete).
 */
export function callItem(
  callId: string,
  name: string,
  argumentsText: string,
  customNames: ReadonlySet<string>,
  id = newItemId(customNames.has(name) ? 'custom_tool_call' : 'function_call'),
): OutputItem {
  if (customNames.has(name)) {
    return {
      type: 'custom_tool_call',
      id,
      call_id: callId,
      name,
      input: customCallInput(argumentsText),
    };
  }
  return {
    type: 'function_call',
    id,
    call_id: callId,
    name,
    arguments: argumentsText,
    status: 'completed',
  };
}

/** An OpenAI-shaped tool call as the adapters report it; a missing id gets one of ours. */
function readToolCall(call: unknown): { callId: string; name: string; argumentsText: string } {
  const value = call as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
  const argumentsValue = value?.function?.arguments;
  return {
    callId: typeof value?.id === 'string' && value.id !== '' ? value.id : newCallId(),
    name: typeof value?.function?.name === 'string' ? value.function.name : '',
    argumentsText:
      typeof argumentsValue === 'string' ? argumentsValue : JSON.stringify(argumentsValue ?? {}),
  };
}

export function newCallId(): string {
  return `call_${randomHex12()}`;
}

/** The gateway's token classes in OpenAI's usage shape: cached and reasoning are shares. */
export function toWireUsage(usage: TokenUsage): ResponseUsage {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}
