import type { CanonicalEmbeddings } from '../../pipeline/canonical';

export interface EmbeddingObject {
  object: 'embedding';
  index: number;
  embedding: number[] | string;
}

/** OpenAI's `CreateEmbeddingResponse`. */
export interface EmbeddingList {
  object: 'list';
  data: EmbeddingObject[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** The vectors in input order, as floats or as base64 of little-endian float32 (as OpenAI). */
export function toEmbeddingList(
  answer: CanonicalEmbeddings,
  model: string,
  encodingFormat: 'float' | 'base64',
): EmbeddingList {
  const { promptTokens } = answer.usage;
  return {
    object: 'list',
    data: answer.vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: encodingFormat === 'base64' ? float32Base64(vector) : vector,
    })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

export function float32Base64(vector: number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i], i * 4);
  return bytes.toString('base64');
}
