import { END_USER_PARAMETER } from './chat-completion.schemas';
import { body, json, publicOperation, ref } from './schema-helpers';

// /v1/messages in the OpenAPI document (docs/messages.md): Anthropic's Messages API as the
// gateway accepts and answers it. Bodies are described as far as the gateway reads them; other
// fields are allowed, and reach Anthropic deployments unchanged.

const ANTHROPIC_ERRORS = {
  '400':
    'invalid_request_error: a field fails validation (named in the message), bad JSON, or the provider refused the request.',
  '401': 'authentication_error: no key, or a wrong, revoked, expired or rotated-out one.',
  '403': "permission_error: the model is outside the key's or team's allow-list.",
  '404': 'not_found_error: unknown model or route.',
  '413': 'request_too_large: body over 1 MiB.',
  '429': 'rate_limit_error: a rate limit (retry-after) or a spent budget (x-should-retry: false).',
  '500': "api_error: the gateway's own fault.",
  '502': 'api_error: the provider failed before the first event.',
  '503': 'api_error: the gateway is not ready.',
  '504': 'timeout_error: the provider did not answer in time.',
  '529': "overloaded_error: the deployment's queue is full, or the provider is overloaded.",
};
const errors = Object.fromEntries(
  Object.entries(ANTHROPIC_ERRORS).map(([status, description]) => [
    status,
    { description, ...json(ref('AnthropicErrorEnvelope')) },
  ]),
);
const usage = { type: 'integer', minimum: 0 };

export const MESSAGES_SCHEMAS = {
  MessagesRequest: {
    type: 'object',
    required: ['model', 'max_tokens', 'messages'],
    properties: {
      model: { type: 'string', minLength: 1, description: 'A public model or an alias.' },
      max_tokens: { type: 'integer', minimum: 1 },
      messages: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['role', 'content'],
          properties: {
            role: { enum: ['user', 'assistant', 'system'] },
            content: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
          },
        },
      },
      system: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
      stream: { type: 'boolean' },
      tools: { type: 'array', items: { type: 'object' } },
      tool_choice: { type: 'object' },
      thinking: { type: 'object' },
    },
  },
  AnthropicMessage: {
    type: 'object',
    required: ['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage'],
    properties: {
      id: { type: 'string' },
      type: { const: 'message' },
      role: { const: 'assistant' },
      model: { type: 'string', description: 'The model the client named.' },
      content: { type: 'array', items: { type: 'object', required: ['type'] } },
      stop_reason: { type: ['string', 'null'] },
      stop_sequence: { type: ['string', 'null'] },
      usage: {
        type: 'object',
        required: ['input_tokens', 'output_tokens'],
        properties: {
          input_tokens: usage,
          output_tokens: usage,
          cache_creation_input_tokens: usage,
          cache_read_input_tokens: usage,
        },
      },
    },
  },
  AnthropicErrorEnvelope: {
    type: 'object',
    required: ['type', 'error'],
    properties: {
      type: { const: 'error' },
      error: {
        type: 'object',
        required: ['type', 'message'],
        properties: { type: { type: 'string' }, message: { type: 'string' } },
      },
      request_id: { type: 'string' },
    },
  },
};

export const MESSAGES_PATHS = {
  '/v1/messages': {
    post: publicOperation(
      'createMessage',
      "Anthropic's Messages API: a message as JSON, or Anthropic's events with `stream: true` (docs/messages.md). The key may also be sent as `x-api-key`.",
      {
        parameters: [END_USER_PARAMETER],
        requestBody: body('MessagesRequest'),
        responses: {
          '200': {
            description:
              'A message, or with `stream: true` the events message_start ... message_stop. Anthropic deployments answer as Anthropic sent it, but for `model`.',
            content: {
              'application/json': { schema: ref('AnthropicMessage') },
              'text/event-stream': { schema: { type: 'string' } },
            },
          },
          ...errors,
        },
      },
    ),
  },
  '/v1/messages/count_tokens': {
    post: publicOperation(
      'countMessageTokens',
      "A message body's input tokens: counted by an Anthropic deployment, estimated for the others.",
      {
        requestBody: body('MessagesRequest'),
        responses: {
          '200': {
            description: 'The count.',
            ...json({
              type: 'object',
              required: ['input_tokens'],
              properties: { input_tokens: usage },
            }),
          },
          ...errors,
        },
      },
    ),
  },
};
