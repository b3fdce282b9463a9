import { MAX_END_USER_LENGTH } from '../common/validation/end-user';
import { MAX_DIMENSIONS, MAX_EMBEDDING_INPUTS } from '../formats/embeddings/embeddings.request';

/**
 * JSON Schema of the embeddings wire format, describing the hand-written rules of
 * formats/embeddings/embeddings.request.ts. Optional fields accept null, read as absent.
 */
const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
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
