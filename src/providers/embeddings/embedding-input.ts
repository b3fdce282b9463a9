import { createHash } from 'node:crypto';
import { invalidParameter } from '../../common/validation/invalid-parameter';
import { estimateTokens } from '../../common/tokens/token-estimate';
import type { EmbedInput } from '../provider-adapter.interface';

/**
 * The gateway's own token count of embedding inputs: a token array counts its ids, a text four
 * characters a token. What admission holds, and what a provider that reports no usage (Gemini,
 * the mock) is charged.
 */
export function countInputTokens(inputs: readonly EmbedInput[]): number {
  let tokens = 0;
  for (const input of inputs)
    tokens += typeof input === 'string' ? estimateTokens(input) : input.length;
  return tokens;
}

/** The texts of `inputs`, for a provider that takes no token ids (a 400 naming `input`). */
export function textInputs(inputs: readonly EmbedInput[], provider: string): string[] {
  return inputs.map((input) => {
    if (typeof input === 'string') return input;
    throw invalidParameter(
      'input',
      `must be text: the ${provider} deployment serving this model does not take token arrays`,
    );
  });
}

/** Mock vectors are this long when the request sets no `dimensions`. */
export const MOCK_DIMENSIONS = 256;

/**
 * A deterministic unit vector for one input: SHA-256 of the input (and the block number) gives
 * the components, so a test can compute the vector the gateway must answer.
 */
export function mockVector(input: EmbedInput, dimensions = MOCK_DIMENSIONS): number[] {
  const seed = typeof input === 'string' ? `text:${input}` : `tokens:${input.join(',')}`;
  const vector: number[] = [];
  for (let block = 0; vector.length < dimensions; block++) {
    const digest = createHash('sha256').update(`${block}:${seed}`).digest();
    for (let i = 0; i + 2 <= digest.length && vector.length < dimensions; i += 2)
      vector.push(digest.readUInt16LE(i) / 32767.5 - 1);
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / norm);
}
