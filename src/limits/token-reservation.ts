import { estimateTokens } from '../providers/token-estimate';
import { contentText } from '../providers/message-content';
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
  return estimateTokens(messages.map((message) => contentText(message.content)).join('\n'));
}

/**
 * What a request reserves before the upstream call: the prompt estimate plus the completion cap
 * the client asked for (`min` = `max`). Without a cap, `defaultMaxTokens` is only a guess: the
 * request needs room for the prompt and one token (`min`) and reserves up to the default (`max`)
 * as far as the limits have room, so a key whose limit is below the default stays usable without
 * max_tokens. Settlement corrects either to the real usage afterwards.
 */
export function reservationTokens(
  request: ReservableRequest,
  defaultMaxTokens: number,
): { min: number; max: number } {
  const prompt = estimatePromptTokens(request.messages);
  const requested = request.max_completion_tokens ?? request.max_tokens;
  const choices = request.n ?? 1;
  if (requested !== undefined)
    return { min: prompt + requested * choices, max: prompt + requested * choices };
  return { min: prompt + choices, max: prompt + defaultMaxTokens * choices };
}
