import {
  MAX_METADATA_KEY,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE,
} from '../formats/responses/dto/create-response.dto';
import { MAX_TOOLS } from '../formats/responses/dto/response-tool.dto';
import { MAX_END_USER_LENGTH } from '../common/validation/end-user';
import { nullable, object, ref } from './schema-helpers';

/**
 * JSON Schema of OpenAI's Responses API as the gateway reads and answers it (docs/responses.md):
 * the rules of formats/responses/dto, which responses.schemas.spec.ts checks against the parser.
 * Optional fields accept null, read as absent.
 */
const string = { type: 'string' };
const nonEmpty = (maxLength?: number) => ({
  type: 'string',
  minLength: 1,
  ...(maxLength === undefined ? {} : { maxLength }),
});
const tokens = { type: 'integer', minimum: 0 };
const itemStatus = { enum: ['in_progress', 'completed', 'incomplete'] };
/** The optional `id` every input item may carry, and `status` on those that have one. */
const withId = { id: nullable(string) };
const withStatus = { ...withId, status: nullable(itemStatus) };

const inputText = object({ type: { const: 'input_text' }, text: string }, ['type', 'text']);
const inputImage = object(
  {
    type: { const: 'input_image' },
    image_url: {
      type: 'string',
      description: 'An http(s) URL or a base64 data URL; images by `file_id` answer 400.',
      pattern: '^(?:[Hh][Tt][Tt][Pp][Ss]?://|data:[\\w.+-]+/[\\w.+-]+(?:;[^,;]*)*;base64,)',
    },
    detail: nullable({ enum: ['low', 'high', 'auto', 'original'] }),
  },
  ['type', 'image_url'],
);
const outputText = object(
  { type: { const: 'output_text' }, text: string, annotations: { type: 'array' } },
  ['type', 'text'],
);
const refusal = object({ type: { const: 'refusal' }, refusal: string }, ['type', 'refusal']);

/** A message of these roles, its content a string or parts of these types. */
const message = (roles: string[], parts: object[]) =>
  object(
    {
      type: { const: 'message', description: 'May be left out: an item with a role is a message.' },
      role: { enum: roles },
      content: {
        anyOf: [string, { type: 'array', minItems: 1, items: { oneOf: parts } }],
      },
      ...withStatus,
    },
    ['role', 'content'],
  );
const toolOutput = {
  anyOf: [string, { type: 'array', items: { oneOf: [inputText, inputImage] } }],
};
const call = (
  type: string,
  payload: Record<string, unknown>,
  common: Record<string, unknown> = withStatus,
) =>
  object({ type: { const: type }, call_id: nonEmpty(), ...payload, ...common }, [
    'type',
    'call_id',
    ...Object.keys(payload),
  ]);

const outputMessage = object(
  {
    type: { const: 'message' },
    id: string,
    role: { const: 'assistant' },
    status: itemStatus,
    content: { type: 'array', items: ref('ResponseOutputText') },
  },
  ['type', 'id', 'role', 'status', 'content'],
);
const functionCall = call('function_call', { name: nonEmpty(), arguments: string });
const customToolCall = call('custom_tool_call', { name: nonEmpty(), input: string }, withId);
const namedChoice = object({ type: { enum: ['function', 'custom'] }, name: nonEmpty() }, [
  'type',
  'name',
]);

/** The response object's fields: the JSON answer, the events' `response`, what GET returns. */
const RESPONSE_OBJECT_FIELDS = {
  id: { type: 'string', pattern: '^resp_' },
  object: { const: 'response' },
  created_at: { type: 'integer', description: 'Unix seconds.' },
  completed_at: { type: ['integer', 'null'] },
  status: { enum: ['in_progress', 'completed', 'incomplete', 'failed'] },
  background: { const: false },
  error: {
    anyOf: [object({ code: string, message: string }, ['code', 'message']), { type: 'null' }],
  },
  incomplete_details: {
    anyOf: [
      object({ reason: { enum: ['max_output_tokens', 'content_filter'] } }, ['reason']),
      { type: 'null' },
    ],
  },
  model: { type: 'string', description: 'The model the client named.' },
  output: { type: 'array', items: ref('ResponseOutputItem') },
  output_text: { type: 'string', description: 'The text of the output messages.' },
  usage: nullable(ref('ResponseUsage')),
  instructions: { type: ['string', 'null'] },
  max_output_tokens: { type: ['integer', 'null'] },
  parallel_tool_calls: { type: 'boolean' },
  previous_response_id: { type: ['string', 'null'] },
  reasoning: ref('ResponseReasoning'),
  store: { type: 'boolean', description: 'False too when storing it failed.' },
  temperature: { type: ['number', 'null'] },
  text: ref('ResponseText'),
  tool_choice: ref('ResponseToolChoice'),
  tools: { type: 'array', items: ref('ResponseTool') },
  top_p: { type: ['number', 'null'] },
  truncation: { const: 'disabled' },
  user: { type: ['string', 'null'] },
  metadata: ref('ResponseMetadata'),
};

export const RESPONSES_SCHEMAS = {
  ResponseOutputText: { ...outputText, required: ['type', 'text', 'annotations'] },
  ResponseInputItem: {
    description:
      'Input items as the client sent them; a `reasoning` item is stored and never sent to a provider.',
    oneOf: [
      message(['user'], [inputText, inputImage]),
      message(['system', 'developer'], [inputText]),
      message(['assistant'], [outputText, refusal, inputText]),
      functionCall,
      customToolCall,
      call('function_call_output', { output: toolOutput }),
      call('custom_tool_call_output', { output: toolOutput }, withId),
      object({ type: { const: 'reasoning' }, ...withId }, ['type']),
    ],
  },
  ResponseOutputItem: {
    oneOf: [
      outputMessage,
      { allOf: [functionCall, { required: ['id', 'status'] }] },
      { allOf: [customToolCall, { required: ['id'] }] },
    ],
  },
  ResponseTool: {
    description:
      'Function and custom tools only: any other type is a tool the provider would run, and answers 400 `unsupported_tool`.',
    oneOf: [
      object(
        {
          type: { const: 'function' },
          name: nonEmpty(128),
          description: nullable(string),
          parameters: nullable({ type: 'object', description: 'A JSON Schema.' }),
          strict: nullable({ type: 'boolean' }),
        },
        ['type', 'name'],
      ),
      object(
        {
          type: { const: 'custom' },
          name: nonEmpty(128),
          description: nullable(string),
          format: nullable({
            oneOf: [
              object({ type: { const: 'text' } }, ['type']),
              object(
                {
                  type: { const: 'grammar' },
                  syntax: { enum: ['lark', 'regex'] },
                  definition: string,
                },
                ['type', 'syntax', 'definition'],
              ),
            ],
          }),
        },
        ['type', 'name'],
      ),
    ],
  },
  ResponseToolChoice: {
    description: 'A named tool must be one of `tools`.',
    oneOf: [
      { enum: ['none', 'auto', 'required'] },
      namedChoice,
      object(
        {
          type: { const: 'allowed_tools' },
          mode: { enum: ['auto', 'required'] },
          tools: { type: 'array', minItems: 1, items: namedChoice },
        },
        ['type', 'mode', 'tools'],
      ),
    ],
  },
  ResponseText: object({
    format: nullable({
      oneOf: [
        object({ type: { const: 'text' } }, ['type']),
        object({ type: { const: 'json_object' } }, ['type']),
        object(
          {
            type: { const: 'json_schema' },
            name: nonEmpty(64),
            schema: { type: 'object' },
            description: nullable(string),
            strict: nullable({ type: 'boolean' }),
          },
          ['type', 'name', 'schema'],
        ),
      ],
    }),
    verbosity: nullable({ enum: ['low', 'medium', 'high'] }),
  }),
  ResponseReasoning: object({
    effort: nullable({ type: 'string', maxLength: 32 }),
    summary: nullable({ enum: ['auto', 'concise', 'detailed'] }),
  }),
  ResponseMetadata: {
    type: 'object',
    maxProperties: MAX_METADATA_KEYS,
    propertyNames: { maxLength: MAX_METADATA_KEY },
    additionalProperties: { type: 'string', maxLength: MAX_METADATA_VALUE },
  },
  CreateResponseRequest: {
    type: 'object',
    description:
      'Fields not listed here are dropped unread, but for `conversation` and `prompt`, which answer 400 (docs/compatibility.md).',
    required: ['model', 'input'],
    properties: {
      model: { type: 'string', minLength: 1, description: 'A public model or an alias.' },
      input: {
        description: 'A string (one user message) or input items.',
        anyOf: [string, { type: 'array', items: ref('ResponseInputItem') }],
      },
      tools: nullable({ type: 'array', maxItems: MAX_TOOLS, items: ref('ResponseTool') }),
      tool_choice: nullable(ref('ResponseToolChoice')),
      instructions: nullable(string),
      parallel_tool_calls: nullable({ type: 'boolean' }),
      max_output_tokens: nullable({ type: 'integer', minimum: 1 }),
      temperature: nullable({ type: 'number', minimum: 0, maximum: 2 }),
      top_p: nullable({ type: 'number', minimum: 0, maximum: 1 }),
      text: nullable(ref('ResponseText')),
      reasoning: nullable(ref('ResponseReasoning')),
      stream: nullable({ type: 'boolean' }),
      store: nullable({
        type: 'boolean',
        description: 'Default true; 400 `store_disabled` when true and RESPONSES_STORE=off.',
      }),
      previous_response_id: nullable({ ...nonEmpty(256), description: 'Continues its chain.' }),
      metadata: nullable(ref('ResponseMetadata')),
      user: nullable({ type: 'string', maxLength: MAX_END_USER_LENGTH }),
      include: nullable({ type: 'array', items: { type: 'string', maxLength: 128 } }),
    },
  },
  ResponseUsage: object(
    {
      input_tokens: tokens,
      input_tokens_details: object({ cached_tokens: tokens }, ['cached_tokens']),
      output_tokens: tokens,
      output_tokens_details: object({ reasoning_tokens: tokens }, ['reasoning_tokens']),
      total_tokens: tokens,
    },
    [
      'input_tokens',
      'input_tokens_details',
      'output_tokens',
      'output_tokens_details',
      'total_tokens',
    ],
  ),
  ResponseObject: object(
    RESPONSE_OBJECT_FIELDS,
    Object.keys(RESPONSE_OBJECT_FIELDS).filter((field) => field !== 'output_text'),
  ),
};
