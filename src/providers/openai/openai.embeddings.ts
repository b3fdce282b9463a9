import { UpstreamError } from '../../common/errors/upstream.error';
import type { UpstreamEmbedRequest, UpstreamEmbedResult } from '../provider-adapter.interface';

// OpenAI's embeddings API (POST {base_url}/embeddings). Pure mappings, no I/O.

/** The client's fields passed on; vectors are asked as floats and encoded by the gateway. */
export function buildEmbeddingsBody(request: UpstreamEmbedRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.deployment.upstreamModel,
    // One input goes as OpenAI's single form (a string, or one array of token ids).
    input: request.inputs.length === 1 ? request.inputs[0] : request.inputs,
    encoding_format: 'float',
  };
  if (request.dimensions !== undefined) body.dimensions = request.dimensions;
  if (request.user !== undefined) body.user = request.user;
  return body;
}

interface OpenAiEmbeddingList {
  data?: Array<{ index?: unknown; embedding?: unknown }>;
  usage?: { prompt_tokens?: unknown };
}

/** The vectors in input order (by each item's `index`), and the reported prompt tokens. */
export function mapEmbeddings(json: unknown, inputCount: number): UpstreamEmbedResult {
  const list = json as OpenAiEmbeddingList;
  if (!Array.isArray(list?.data) || list.data.length !== inputCount)
    throw new UpstreamError('invalid_response', `expected ${inputCount} embeddings in data`);
  const vectors: number[][] = new Array<number[]>(inputCount);
  list.data.forEach((item, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    if (!Array.isArray(item?.embedding) || index < 0 || index >= inputCount || vectors[index])
      throw new UpstreamError('invalid_response', `embedding ${position} is not a float vector`);
    vectors[index] = item.embedding as number[];
  });
  const promptTokens = list.usage?.prompt_tokens;
  if (typeof promptTokens !== 'number')
    throw new UpstreamError('invalid_response', 'usage.prompt_tokens missing');
  return { vectors, usage: { promptTokens, completionTokens: 0 } };
}
