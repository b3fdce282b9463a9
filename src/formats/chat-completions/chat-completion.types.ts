/** OpenAI wire types the gateway answers with (snake_case, as on the wire). */

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: unknown[] };
    finish_reason: string;
    /** OpenAI's logprobs object when the client asked for logprobs, else null. */
    logprobs: unknown;
  }>;
  usage: CompletionUsage;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: 'assistant'; content?: string; tool_calls?: unknown[] };
    finish_reason: string | null;
    logprobs: unknown;
  }>;
  usage?: CompletionUsage | null;
}
