import { GatewayException } from '../../common/errors/gateway.exception';
import { endUserId } from '../../common/validation/end-user';
import { invalidParameter, isJsonObject } from '../../common/validation/invalid-parameter';
import type { CanonicalEmbedRequest } from '../../pipeline/canonical';
import type { EmbedInput } from '../../providers/provider-adapter.interface';

/** OpenAI's limits: inputs per request; `dimensions` is bounded well above any model's. */
export const MAX_EMBEDDING_INPUTS = 2048;
export const MAX_DIMENSIONS = 16_384;

/** The body of POST /v1/embeddings after validation. */
export interface EmbeddingsBody {
  model: string;
  inputs: EmbedInput[];
  dimensions?: number;
  encodingFormat: 'float' | 'base64';
  user?: string;
}

/**
 * Reads an embeddings body by hand, in time linear in its size (as the chat body is read), and
 * ignores fields it does not know, as OpenAI does. Every refusal is a 400 naming its field.
 */
export function parseEmbeddingsBody(body: unknown): EmbeddingsBody {
  if (!isJsonObject(body)) throw new GatewayException('invalid_body');
  if (typeof body.model !== 'string' || body.model.length === 0)
    throw invalidParameter('model', 'must be a non-empty string');
  const parsed: EmbeddingsBody = {
    model: body.model,
    inputs: parseInput(body.input),
    encodingFormat: 'float',
  };
  if (body.dimensions != null) {
    const { dimensions } = body;
    if (!Number.isInteger(dimensions) || (dimensions as number) < 1)
      throw invalidParameter('dimensions', 'must be a positive integer');
    if ((dimensions as number) > MAX_DIMENSIONS)
      throw invalidParameter('dimensions', `must be at most ${MAX_DIMENSIONS}`);
    parsed.dimensions = dimensions as number;
  }
  if (body.encoding_format != null) {
    if (body.encoding_format !== 'float' && body.encoding_format !== 'base64')
      throw invalidParameter('encoding_format', "must be 'float' or 'base64'");
    parsed.encodingFormat = body.encoding_format;
  }
  if (body.user != null) parsed.user = endUserId(body.user, 'user');
  return parsed;
}

/** A string, an array of strings, an array of token ids, or an array of token-id arrays. */
function parseInput(input: unknown): EmbedInput[] {
  if (typeof input === 'string') {
    if (input.length === 0) throw invalidParameter('input', 'must not be an empty string');
    return [input];
  }
  if (!Array.isArray(input) || input.length === 0)
    throw invalidParameter(
      'input',
      'must be a non-empty string, array of strings, array of token ids or array of token-id arrays',
    );
  if (input.every((item) => typeof item === 'number')) return [tokenArray(input, 'input')];
  if (input.length > MAX_EMBEDDING_INPUTS)
    throw invalidParameter('input', `must have at most ${MAX_EMBEDDING_INPUTS} items`);
  const textual = typeof input[0] === 'string';
  return input.map((item: unknown, index) => {
    const path = `input[${index}]`;
    if (textual) {
      if (typeof item !== 'string')
        throw invalidParameter(path, 'must be a string, as the other items are');
      if (item.length === 0) throw invalidParameter(path, 'must not be an empty string');
      return item;
    }
    if (!Array.isArray(item))
      throw invalidParameter(path, 'must be a string or an array of token ids');
    return tokenArray(item, path);
  });
}

function tokenArray(items: unknown[], path: string): number[] {
  if (items.length === 0) throw invalidParameter(path, 'must not be an empty array');
  for (const token of items)
    if (!Number.isInteger(token) || (token as number) < 0)
      throw invalidParameter(path, 'must hold non-negative integer token ids');
  return items as number[];
}

export function toCanonicalEmbedRequest(body: EmbeddingsBody): CanonicalEmbedRequest {
  const request: CanonicalEmbedRequest = { model: body.model, inputs: body.inputs };
  if (body.dimensions !== undefined) request.dimensions = body.dimensions;
  if (body.user !== undefined) request.user = body.user;
  return request;
}
