/**
 * One usage shape for every provider (docs/spend.md, "Token classes"). promptTokens counts every
 * input token, cached ones included; completionTokens every output token, reasoning included.
 * The optional classes are shares of those totals, present when the provider reported them.
 */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens: read from the provider's prompt cache. */
  cachedTokens?: number;
  /** Of promptTokens: written to the provider's prompt cache (Anthropic's cache creation). */
  cacheWriteTokens?: number;
  /** Of completionTokens: reasoning ("thinking") tokens. */
  reasoningTokens?: number;
}
