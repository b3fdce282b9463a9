import type { Price } from '../common/money/price';
import { estimateTokensOfLength } from '../common/tokens/token-estimate';
import { contentTextLength } from '../providers/message-content';
import type { MessageContent } from '../providers/provider-adapter.interface';

export interface ReservableRequest {
  messages: Array<{ content?: MessageContent | null }>;
  max_tokens?: number;
  max_completion_tokens?: number;
  /** Choices asked for: each may use the whole completion cap. */
  n?: number;
}

/**
 * Also what a stream is settled with when the provider reports no usage, so both always agree.
 * Only text counts: a string content or the `text` parts of an array.
 */
export function estimatePromptTokens(messages: ReservableRequest['messages']): number {
  // estimateTokens() of the texts joined by newlines, counted without building that string.
  let length = messages.length > 0 ? messages.length - 1 : 0;
  for (const message of messages) length += contentTextLength(message.content);
  return estimateTokensOfLength(length);
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

/** `prompt`: the request's estimatePromptTokens(), when the caller has it already. */
export function reservationTokens(
  request: ReservableRequest,
  defaultMaxTokens: number,
  prompt = estimatePromptTokens(request.messages),
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
  promptTokens = estimatePromptTokens(request.messages),
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
