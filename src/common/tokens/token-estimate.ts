/** Rough token count for a provider that reports no usage: about four characters a token. */
export function estimateTokens(text: string): number {
  return estimateTokensOfLength(text.length);
}

/** estimateTokens() of a text of this many characters, for callers that only count them. */
export function estimateTokensOfLength(characters: number): number {
  return Math.ceil(characters / 4);
}
