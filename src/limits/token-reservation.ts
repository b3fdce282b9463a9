import { estimateTokens } from '../providers/adapters/openai-compatible.mapping';

export interface ReservableRequest {
  messages: Array<{ content?: string | null }>;
  max_tokens?: number;
  max_completion_tokens?: number;
}

/** Also what a stream is settled with when the provider reports no usage, so both always agree. */
export function estimatePromptTokens(messages: ReservableRequest['messages']): number {
  return estimateTokens(messages.map((message) => message.content ?? '').join('\n'));
}

/**
 * What a request may cost at most, charged before the upstream call: the prompt estimate plus
 * the completion cap the client asked for, or `defaultMaxTokens` when it asked for none.
 */
export function reservationTokens(request: ReservableRequest, defaultMaxTokens: number): number {
  return estimatePromptTokens(request.messages) + (request.max_completion_tokens ?? request.max_tokens ?? defaultMaxTokens);
}
