import type { Price } from '../common/money/price';
import { UTF8_BYTES_COUNTER, type PromptTokenCounter } from '../common/tokens/prompt-token-counter';
import { TokenizerBudget } from '../common/tokens/tokenizer-budget';
import type { ContentPart, MessageContent } from '../providers/provider-adapter.interface';

/** The fields of a chat message that reach the model's prompt. */
export interface ReservableMessage {
  role?: string;
  content?: MessageContent | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: unknown[];
  function_call?: unknown;
}

export interface ReservableRequest {
  /** The public model: which deployments, so which tokenizers, the request may reach. */
  model?: string;
  messages: ReservableMessage[];
  /** Tool definitions and a JSON schema for the answer are part of the prompt too. */
  tools?: unknown[];
  response_format?: unknown;
  max_tokens?: number;
  max_completion_tokens?: number;
  /** Choices asked for: each may use the whole completion cap. */
  n?: number;
  /** The prompt's tokens when the caller counted them (embeddings); estimated from messages otherwise. */
  promptTokens?: number;
}

/**
 * CPU time the tokenizer may spend on one request's prompt beyond its first kilobyte of text;
 * the rest is counted as UTF-8 bytes, still an upper bound (tokenizer-budget.ts).
 */
const TOKENIZER_BUDGET_MS = 4;

/**
 * An upper bound of the prompt tokens of these messages for the model family `counter` counts
 * for (default: the UTF-8 byte bound, which holds for every family): every text a message carries
 * (content, refusals, names, tool calls and their JSON arguments), each image at its documented
 * cost, plus the chat format's overheads. What the token and dollar holds reserve, and what a
 * request is settled with when the provider reports no usage, so both always agree.
 */
export function estimatePromptTokens(
  messages: ReservableRequest['messages'],
  counter: PromptTokenCounter = UTF8_BYTES_COUNTER,
): number {
  counter.prepare();
  return (
    countMessages(messages, counter, new TokenizerBudget(TOKENIZER_BUDGET_MS)) + counter.perRequest
  );
}

/**
 * estimatePromptTokens() of the request's messages plus its tool definitions and response schema,
 * for the highest of the given counters (one per model family the request may be routed to).
 */
export function estimateRequestPromptTokens(
  request: ReservableRequest,
  counters: readonly PromptTokenCounter[] = [UTF8_BYTES_COUNTER],
): number {
  let highest = 0;
  for (const counter of counters.length > 0 ? counters : [UTF8_BYTES_COUNTER]) {
    counter.prepare();
    const budget = new TokenizerBudget(TOKENIZER_BUDGET_MS);
    let tokens = countMessages(request.messages, counter, budget) + counter.perRequest;
    if (request.tools && request.tools.length > 0)
      tokens += counter.toolsOverhead + counter.text(JSON.stringify(request.tools), budget);
    if (request.response_format != null)
      tokens += counter.text(JSON.stringify(request.response_format), budget);
    highest = Math.max(highest, tokens);
  }
  return highest;
}

function countMessages(
  messages: readonly ReservableMessage[],
  counter: PromptTokenCounter,
  budget: TokenizerBudget,
): number {
  let tokens = 0;
  for (const message of messages) {
    tokens += counter.perMessage + counter.text(message.role ?? '', budget);
    tokens += countContent(message.content, counter, budget);
    if (message.name) tokens += counter.perName + counter.text(message.name, budget);
    if (message.tool_call_id) tokens += counter.text(message.tool_call_id, budget);
    if (message.tool_calls && message.tool_calls.length > 0)
      tokens +=
        counter.perToolCall * message.tool_calls.length +
        counter.text(JSON.stringify(message.tool_calls), budget);
    if (message.function_call != null)
      tokens += counter.perToolCall + counter.text(JSON.stringify(message.function_call), budget);
  }
  return tokens;
}

function countContent(
  content: MessageContent | null | undefined,
  counter: PromptTokenCounter,
  budget: TokenizerBudget,
): number {
  if (content == null) return 0;
  if (typeof content === 'string') return counter.text(content, budget);
  let tokens = 0;
  for (const part of content) tokens += countPart(part, counter, budget);
  return tokens;
}

function countPart(
  part: ContentPart,
  counter: PromptTokenCounter,
  budget: TokenizerBudget,
): number {
  switch (part.type) {
    case 'text':
      return counter.text(part.text, budget);
    case 'refusal':
      return counter.text(part.refusal, budget);
    case 'image_url':
      return counter.image(part.image_url.detail);
    case 'input_audio':
      return audioTokens(part.input_audio.data);
    case 'file':
      return fileTokens(part.file, counter, budget);
    default:
      // A part type added later: held at its JSON text, never at nothing.
      return counter.text(JSON.stringify(part), budget);
  }
}

/**
 * Audio is billed by duration: OpenAI about 10 tokens a second, Gemini 32. Compressed speech needs
 * at least 2 kbit/s (250 bytes a second), so a byte of audio is at most 32 / 250 of a token;
 * one token per 8 bytes is above that.
 */
function audioTokens(base64: string): number {
  return Math.ceil(decodedLength(base64) / 8);
}

/**
 * A file (a PDF) is read as its text plus an image of each page. The gateway does not parse it:
 * it holds the decoded size in bytes plus one page image per 8 KiB; a file sent by id is unknown
 * to the gateway and held as one page. An estimate, not a bound (docs/keys-and-limits.md).
 */
function fileTokens(
  file: { file_data?: string; filename?: string },
  counter: PromptTokenCounter,
  budget: TokenizerBudget,
): number {
  const size = file.file_data ? decodedLength(file.file_data) : 0;
  const pages = Math.max(1, Math.ceil(size / 8_192));
  return size + pages * counter.image('high') + counter.text(file.filename ?? '', budget);
}

/** Bytes of a base64 text (a data: URL's header is counted too, which only adds). */
function decodedLength(base64: string): number {
  return Math.ceil((base64.length * 3) / 4);
}

/**
 * What a request reserves before the upstream call: the prompt estimate plus the completion cap
 * the client asked for (`min` = `max`). Without a cap, `defaultMaxTokens` is only a guess: the
 * request needs room for the prompt and one token (`min`) and reserves up to the default (`max`)
 * as far as the limits have room, so a key whose limit is below the default stays usable without
 * max_tokens. Settlement corrects either to the real usage afterwards.
 */
export interface Range {
  min: number;
  max: number;
}

/** `prompt`: the request's estimateRequestPromptTokens(), when the caller has it already. */
export function reservationTokens(
  request: ReservableRequest,
  defaultMaxTokens: number,
  prompt = estimateRequestPromptTokens(request),
): Range {
  const requested = request.max_completion_tokens ?? request.max_tokens;
  const choices = request.n ?? 1;
  if (requested !== undefined)
    return { min: prompt + requested * choices, max: prompt + requested * choices };
  return { min: prompt + choices, max: prompt + defaultMaxTokens * choices };
}

/**
 * What a request reserves against dollar budgets, in pico-dollars: the prompt estimate at the
 * dearest input rate (input, cached input or cache write, so a cache write cannot overshoot)
 * plus the completion cap at the dearer of output and reasoning, at the dearest of the candidate
 * deployments (failover may land on any). Without a cap the completion is taken as the
 * candidate's own cap when it sends one (`maxTokens`: Anthropic's default_max_tokens), else
 * `defaultMaxTokens`, per choice, and held in full (unlike tokens, a dollar hold never shrinks to
 * fit the room left), so only an answer longer than that can overshoot, by its excess.
 * Null when no candidate has a price.
 */
export function reservationCost(
  request: ReservableRequest,
  defaultMaxTokens: number,
  candidates: PricedCandidate[],
  promptTokens = estimateRequestPromptTokens(request),
): { min: bigint; max: bigint } | null {
  const prompt = BigInt(promptTokens);
  const choices = BigInt(request.n ?? 1);
  const requested = request.max_completion_tokens ?? request.max_tokens;
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  let cost: bigint | null = null;
  for (const { price, maxTokens } of candidates) {
    if (!price) continue;
    const inputRate = max(max(price.input, price.cachedInput), price.cacheWrite);
    const outputRate = max(price.output, price.reasoning);
    const cap = BigInt(requested ?? maxTokens ?? defaultMaxTokens) * choices;
    const candidate = prompt * inputRate + cap * outputRate;
    cost = cost === null ? candidate : max(cost, candidate);
  }
  return cost === null ? null : { min: cost, max: cost };
}

/** A deployment the request may be routed to, as the dollar hold sees it. */
export interface PricedCandidate {
  price?: Price | null;
  /** The completion cap the deployment sends when the request has none (Anthropic). */
  maxTokens?: number;
}
