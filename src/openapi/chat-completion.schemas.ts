import { MAX_END_USER_LENGTH } from '../common/validation/end-user';
import { MESSAGE_ROLES } from '../formats/chat-completions/dto/chat-message.dto';
import {
  MAX_CHOICES,
  MAX_LOGIT_BIAS_ENTRIES,
  MAX_TOOLS,
  MAX_TOP_LOGPROBS,
} from '../formats/chat-completions/dto/create-chat-completion.dto';
import { body, modelCallResponses, nullable, publicOperation, ref } from './schema-helpers';

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses) of the chat-completions wire format. The body is
 * validated by the hand-written rules in formats/chat-completions/dto (linear time); these
 * schemas describe the same rules, and openapi.document.spec.ts checks the two agree field by
 * field. Optional fields accept null: the parser treats null as absent, as OpenAI does.
 */
const text = (type: string) => ({
  type: 'object',
  required: ['type', type],
  properties: { type: { const: type }, [type]: { type: 'string' } },
});

/** The end-user header, on every route that makes a model request (docs/spend.md). */
export const END_USER_PARAMETER = {
  name: 'x-gateway-end-user',
  in: 'header',
  required: false,
  description:
    "The end user the request is made for, stored on the usage record; wins over the body's `user` or `metadata.user_id`. At most 256 characters, no control characters.",
  schema: { type: 'string', maxLength: MAX_END_USER_LENGTH },
};

export const CHAT_COMPLETION_SCHEMAS = {
  ContentPart: {
    oneOf: [
      text('text'),
      text('refusal'),
      {
        type: 'object',
        required: ['type', 'image_url'],
        properties: {
          type: { const: 'image_url' },
          image_url: {
            type: 'object',
            required: ['url'],
            properties: { url: { type: 'string' }, detail: { type: 'string' } },
          },
        },
      },
      {
        type: 'object',
        required: ['type', 'input_audio'],
        properties: {
          type: { const: 'input_audio' },
          input_audio: {
            type: 'object',
            required: ['data', 'format'],
            properties: { data: { type: 'string' }, format: { type: 'string' } },
          },
        },
      },
      {
        type: 'object',
        required: ['type', 'file'],
        properties: {
          type: { const: 'file' },
          file: {
            type: 'object',
            anyOf: [{ required: ['file_data'] }, { required: ['file_id'] }],
            properties: {
              file_data: { type: 'string' },
              file_id: { type: 'string' },
              filename: { type: 'string' },
            },
          },
        },
      },
    ],
  },
  ChatMessage: {
    type: 'object',
    description:
      'One turn. Content parts allowed per role: system/developer/tool text; user text, image_url, input_audio, file; assistant text, refusal; function a string only. ' +
      'content may be null or absent only on an assistant turn with tool_calls or function_call; name is required on a function turn, tool_call_id on a tool turn. Other fields are dropped.',
    required: ['role'],
    properties: {
      role: { enum: [...MESSAGE_ROLES] },
      content: {
        anyOf: [
          { type: 'string' },
          { type: 'array', minItems: 1, items: ref('ContentPart') },
          { type: 'null' },
        ],
      },
      name: nullable({ type: 'string', minLength: 1, maxLength: 256 }),
      tool_call_id: nullable({ type: 'string' }),
      tool_calls: nullable({
        type: 'array',
        items: { type: 'object' },
        description: 'Assistant turns only; ignored on others.',
      }),
      function_call: nullable({
        type: 'object',
        description: 'Assistant turns only; ignored on others.',
      }),
    },
  },
  ChatCompletionRequest: {
    type: 'object',
    description: 'Fields not listed here are dropped unread (docs/compatibility.md).',
    required: ['model', 'messages'],
    properties: {
      model: { type: 'string', minLength: 1, description: 'A public model name of this gateway.' },
      messages: { type: 'array', minItems: 1, items: ref('ChatMessage') },
      stream: nullable({ type: 'boolean' }),
      stream_options: nullable({
        type: 'object',
        properties: { include_usage: nullable({ type: 'boolean' }) },
      }),
      temperature: nullable({ type: 'number', minimum: 0, maximum: 2 }),
      max_tokens: nullable({ type: 'integer', minimum: 1 }),
      max_completion_tokens: nullable({ type: 'integer', minimum: 1 }),
      top_p: nullable({ type: 'number', minimum: 0, maximum: 1 }),
      stop: nullable({
        anyOf: [{ type: 'string' }, { type: 'array', maxItems: 4, items: { type: 'string' } }],
      }),
      seed: nullable({ type: 'integer' }),
      user: nullable({
        type: 'string',
        maxLength: MAX_END_USER_LENGTH,
        description:
          'The end user, stored on the usage record (docs/spend.md); the x-gateway-end-user header wins over it. No control characters.',
      }),
      presence_penalty: nullable({ type: 'number', minimum: -2, maximum: 2 }),
      frequency_penalty: nullable({ type: 'number', minimum: -2, maximum: 2 }),
      logit_bias: nullable({
        type: 'object',
        maxProperties: MAX_LOGIT_BIAS_ENTRIES,
        propertyNames: { pattern: '^[0-9]+$' },
        additionalProperties: { type: 'number', minimum: -100, maximum: 100 },
      }),
      response_format: nullable({
        type: 'object',
        required: ['type'],
        properties: { type: { type: 'string' } },
      }),
      tools: nullable({
        type: 'array',
        maxItems: MAX_TOOLS,
        items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } },
      }),
      tool_choice: nullable({
        anyOf: [{ enum: ['none', 'auto', 'required'] }, { type: 'object' }],
      }),
      parallel_tool_calls: nullable({ type: 'boolean' }),
      reasoning_effort: nullable({ type: 'string' }),
      n: nullable({ type: 'integer', minimum: 1, maximum: MAX_CHOICES }),
      logprobs: nullable({ type: 'boolean' }),
      top_logprobs: nullable({ type: 'integer', minimum: 0, maximum: MAX_TOP_LOGPROBS }),
    },
  },
  Usage: {
    type: 'object',
    required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
    properties: {
      prompt_tokens: { type: 'integer' },
      completion_tokens: { type: 'integer' },
      total_tokens: { type: 'integer' },
    },
  },
  ChatCompletion: {
    type: 'object',
    required: ['id', 'object', 'created', 'model', 'choices'],
    properties: {
      id: { type: 'string' },
      object: { const: 'chat.completion' },
      created: { type: 'integer' },
      model: { type: 'string', description: 'The public model name the client asked for.' },
      choices: {
        type: 'array',
        items: {
          type: 'object',
          required: ['index', 'message', 'finish_reason'],
          properties: {
            index: { type: 'integer' },
            message: {
              type: 'object',
              required: ['role'],
              properties: {
                role: { const: 'assistant' },
                content: { type: ['string', 'null'] },
                tool_calls: { type: 'array', items: { type: 'object' } },
              },
            },
            finish_reason: { type: ['string', 'null'] },
            logprobs: { type: ['object', 'null'] },
          },
        },
      },
      usage: ref('Usage'),
    },
  },
  ChatCompletionChunk: {
    type: 'object',
    description:
      'One `data:` event of a stream (text/event-stream); the stream ends with `data: [DONE]`.',
    required: ['id', 'object', 'created', 'model', 'choices'],
    properties: {
      id: { type: 'string' },
      object: { const: 'chat.completion.chunk' },
      created: { type: 'integer' },
      model: { type: 'string' },
      choices: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            index: { type: 'integer' },
            delta: { type: 'object' },
            finish_reason: { type: ['string', 'null'] },
          },
        },
      },
      usage: nullable(ref('Usage')),
    },
  },
  ErrorEnvelope: {
    type: 'object',
    description:
      "OpenAI's error envelope; `code` is one of the gateway's stable codes (README, Errors).",
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['message', 'type', 'param', 'code', 'source'],
        properties: {
          message: { type: 'string' },
          type: { type: 'string' },
          param: { type: ['string', 'null'] },
          code: { type: ['string', 'null'] },
          source: {
            enum: ['gateway', 'upstream'],
            description: 'Whose fault: the gateway (or the request) or the provider behind it.',
          },
        },
      },
    },
  },
  Model: {
    type: 'object',
    required: ['id', 'object', 'created', 'owned_by'],
    properties: {
      id: { type: 'string', description: 'A public model name.' },
      object: { const: 'model' },
      created: {
        type: 'integer',
        description: 'Unix seconds at which this instance loaded the config that declares it.',
      },
      owned_by: {
        type: 'string',
        description: "The providers of the model's deployments, comma-separated.",
      },
    },
  },
  ModelList: {
    type: 'object',
    required: ['object', 'data'],
    properties: {
      object: { const: 'list' },
      data: { type: 'array', items: { $ref: '#/components/schemas/Model' } },
    },
  },
} as const;

export const CHAT_COMPLETION_PATHS = {
  '/v1/chat/completions': {
    post: publicOperation(
      'createChatCompletion',
      'Create a chat completion, as JSON or as a server-sent event stream (`stream: true`).',
      {
        parameters: [END_USER_PARAMETER],
        requestBody: body('ChatCompletionRequest'),
        responses: modelCallResponses(
          'A completion, or with `stream: true` a stream of chunks ending with `data: [DONE]`.',
          'ChatCompletion',
          'ChatCompletionChunk',
        ),
      },
    ),
  },
};
