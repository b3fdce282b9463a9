import type { CanonicalAnswer, TokenUsage } from '../../pipeline/canonical';
import type { ChatCompletion, CompletionUsage } from './chat-completion.types';
import { newCompletionId, unixSeconds } from './completion-id';

/** The JSON answer: the gateway's own id, the model the client named, every choice given. */
export function toChatCompletion(answer: CanonicalAnswer, model: string): ChatCompletion {
  // This format sends no native body, so the pipeline never answers with one.
  if (answer.type !== 'chat') throw new Error('a pass-through answer reached chat completions');
  const { result } = answer;
  return {
    id: newCompletionId(),
    object: 'chat.completion',
    created: unixSeconds(),
    model,
    // Every choice the provider gave (n > 1), each with its logprobs when asked for.
    choices: [result, ...(result.moreChoices ?? [])].map((choice, index) => ({
      index,
      message: {
        role: 'assistant',
        content: choice.content,
        ...(choice.toolCalls ? { tool_calls: choice.toolCalls } : {}),
      },
      finish_reason: choice.finishReason,
      logprobs: choice.logprobs ?? null,
    })),
    usage: toWireUsage(answer.usage),
  };
}

export function toWireUsage(usage: TokenUsage): CompletionUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}
