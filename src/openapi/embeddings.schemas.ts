import { MAX_END_USER_LENGTH } from '../common/validation/end-user';
import { MAX_DIMENSIONS, MAX_EMBEDDING_INPUTS } from '../formats/embeddings/embeddings.request';
import { END_USER_PARAMETER } from './chat-completion.schemas';
import { body, gatewayErrors, json, nullable, publicOperation, ref } from './schema-helpers';

/**
 * JSON Schema of the embeddings wire format, describing the hand-written rules of
 * formats/embeddings/embeddings.request.ts. Optional fields accept null, read as absent.
 */
const tokens = { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0 } };

export const EMBEDDINGS_SCHEMAS = {
  EmbeddingRequest: {
    type: 'object',
    required: ['model', 'input'],
    properties: {
      model: { type: 'string', minLength: 1 },
      input: {
        oneOf: [
          { type: 'string', minLength: 1 },
          {
            type: 'array',
            minItems: 1,
            maxItems: MAX_EMBEDDING_INPUTS,
            items: { type: 'string', minLength: 1 },
          },
          tokens,
          { type: 'array', minItems: 1, maxItems: MAX_EMBEDDING_INPUTS, items: tokens },
        ],
      },
      dimensions: nullable({ type: 'integer', minimum: 1, maximum: MAX_DIMENSIONS }),
      encoding_format: nullable({ enum: ['float', 'base64'] }),
      user: nullable({ type: 'string', maxLength: MAX_END_USER_LENGTH }),
    },
  },
  EmbeddingList: {
    type: 'object',
    required: ['object', 'data', 'model', 'usage'],
    properties: {
      object: { const: 'list' },
      data: {
        type: 'array',
        items: {
          type: 'object',
          required: ['object', 'index', 'embedding'],
          properties: {
            object: { const: 'embedding' },
            index: { type: 'integer', minimum: 0 },
            embedding: {
              description: 'Floats, or with `encoding_format: base64` little-endian float32.',
              oneOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string' }],
            },
          },
        },
      },
      model: { type: 'string' },
      usage: {
        type: 'object',
        required: ['prompt_tokens', 'total_tokens'],
        properties: {
          prompt_tokens: { type: 'integer', minimum: 0 },
          total_tokens: { type: 'integer', minimum: 0 },
        },
      },
    },
  },
};

export const EMBEDDINGS_PATHS = {
  '/v1/embeddings': {
    post: publicOperation(
      'createEmbedding',
      'Embed texts or token arrays with a `type: embedding` model (docs/embeddings.md).',
      {
        parameters: [END_USER_PARAMETER],
        requestBody: body('EmbeddingRequest'),
        responses: {
          '200': {
            description: 'One vector per input, in input order.',
            ...json(ref('EmbeddingList')),
          },
          ...gatewayErrors(400, 401, 403, 404, 408, 413, 415, 429, 500, 502, 503, 504),
        },
      },
    ),
  },
};
