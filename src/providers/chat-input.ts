import type { ChatTurn, ContentPart } from './provider-adapter.interface';
import { invalidParameter } from '../common/validation/invalid-parameter';
import { UpstreamError } from '../common/errors/upstream.error';

// Helpers shared by the native (non-OpenAI) provider mappings: they read the OpenAI-format request
// the gateway validated and need the same few facts from it, whatever the target wire format.

/** The content parts the native mappings translate; the others (refusal, audio, file) are skipped. */
export type OpenAiContentPart = Extract<ContentPart, { type: 'text' } | { type: 'image_url' }>;

/** An assistant tool call in OpenAI's shape. */
export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A function tool definition in OpenAI's shape. */
export interface OpenAiTool {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters?: Record<string, unknown>;
    strict?: boolean;
  };
}

export type ImageSource =
  { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string };

/** The content of a turn as parts, whether the client sent a plain string or an array. */
export function contentParts(
  content: ChatTurn['content'] | OpenAiContentPart[] | undefined,
): OpenAiContentPart[] {
  if (content == null) return [];
  if (typeof content === 'string')
    return content.length > 0 ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  return (content as ContentPart[]).filter(
    (part): part is OpenAiContentPart =>
      (part?.type === 'text' && typeof part.text === 'string') ||
      (part?.type === 'image_url' && typeof part.image_url?.url === 'string'),
  );
}

/** The text of a turn with its parts joined (for places that only take text, e.g. a system prompt). */
export function contentText(
  content: ChatTurn['content'] | OpenAiContentPart[] | undefined,
): string {
  return contentParts(content)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)(?:;[^,;]*)*;base64,(.*)$/s;

/**
 * A data URL becomes inline base64; an http(s) URL stays a reference. Anything else is refused
 * rather than dropped: the model must not answer about an image it never saw.
 */
export function imageSource(url: string): ImageSource {
  const match = DATA_URL.exec(url);
  if (match) return { kind: 'base64', mediaType: match[1], data: match[2] };
  if (/^https?:\/\//i.test(url)) return { kind: 'url', url };
  throw new UpstreamError(
    'bad_request',
    `image_url is neither a base64 data URL nor an http(s) URL: ${url.slice(0, 60)}`,
  );
}

/** The assistant's tool calls that have the shape OpenAI documents; anything else is ignored. */
export function toolCallsOf(turn: Pick<ChatTurn, 'tool_calls'>): OpenAiToolCall[] {
  if (!Array.isArray(turn.tool_calls)) return [];
  return turn.tool_calls.filter(
    (call): call is OpenAiToolCall =>
      typeof (call as OpenAiToolCall)?.id === 'string' &&
      typeof (call as OpenAiToolCall)?.function?.name === 'string',
  );
}

/** Tool-call arguments are a JSON string on OpenAI's wire and an object on the native ones. */
export function parseArguments(raw: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  } catch {
    // A model can emit broken JSON; the provider still needs an object, and the raw text is kept.
    return { _raw: raw };
  }
}

export function functionTools(tools: unknown): OpenAiTool[] {
  if (!Array.isArray(tools)) return [];
  return tools.filter(
    (tool): tool is OpenAiTool =>
      tool?.type === 'function' && typeof tool.function?.name === 'string',
  );
}

/** The client's output cap, under either of OpenAI's names. */
export function requestedMaxTokens(parameters: Record<string, unknown>): number | undefined {
  const value = parameters.max_completion_tokens ?? parameters.max_tokens;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

export function stopSequences(stop: unknown): string[] | undefined {
  if (typeof stop === 'string') return [stop];
  if (Array.isArray(stop)) {
    const strings = stop.filter((item): item is string => typeof item === 'string');
    return strings.length > 0 ? strings : undefined;
  }
  return undefined;
}

/** Usage that has to be a whole, non-negative count; anything else counts as zero. */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

/**
 * Refuses (400 invalid_parameter, naming the field) what a native provider cannot honour, rather
 * than answer with fewer choices or without the logprobs the client asked for.
 */
export function refuseUnsupported(parameters: Record<string, unknown>, provider: string): void {
  if (typeof parameters.n === 'number' && parameters.n > 1) {
    throw invalidParameter(
      'n',
      `must be 1: the ${provider} deployment serving this model returns one choice`,
    );
  }
  if (parameters.logprobs === true) {
    throw invalidParameter(
      'logprobs',
      `is not supported by the ${provider} deployment serving this model`,
    );
  }
  if (parameters.top_logprobs != null) {
    throw invalidParameter(
      'top_logprobs',
      `is not supported by the ${provider} deployment serving this model`,
    );
  }
}
