import { parseMessage } from '../formats/chat-completions/dto/chat-message.dto';
import {
  CHAT_COMPLETION_FIELDS,
  parseChatCompletion,
} from '../formats/chat-completions/dto/create-chat-completion.dto';
import { GatewayException } from '../common/errors/gateway.exception';
import { renderAnthropicError } from '../formats/anthropic-messages/anthropic-messages.errors';
import { toAnthropicMessage } from '../formats/anthropic-messages/anthropic-messages.response';
import { OPENAPI_DOCUMENT } from './openapi.document';
import { schemaValidator } from './schema-validator.fixture';

const schemas = OPENAPI_DOCUMENT.components.schemas;
const validate = schemaValidator(OPENAPI_DOCUMENT.components);
const accepts = (body: Record<string, unknown>) => {
  try {
    parseChatCompletion(body);
    return true;
  } catch {
    return false;
  }
};

const FULL_BODY = {
  model: 'alpha-k3',
  messages: [
    { role: 'system', content: 'be brief' },
    {
      role: 'user',
      name: 'ann',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image_url', image_url: { url: 'https://x/y.png' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'result' },
    {
      role: 'user',
      content: [
        { type: 'file', file: { file_id: 'f1' } },
        { type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } },
      ],
    },
  ],
  stream: true,
  stream_options: { include_usage: true },
  temperature: 0.5,
  max_tokens: 10,
  max_completion_tokens: 10,
  top_p: 1,
  stop: ['a', 'b'],
  seed: 3,
  user: 'u',
  presence_penalty: 1,
  frequency_penalty: -1,
  logit_bias: { '50256': -100 },
  response_format: { type: 'json_object' },
  tools: [{ type: 'function', function: { name: 'f' } }],
  tool_choice: 'auto',
  parallel_tool_calls: false,
  reasoning_effort: 'low',
  n: 2,
  logprobs: true,
  top_logprobs: 5,
};

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 and its schemas compile as JSON Schema 2020-12', () => {
    expect(OPENAPI_DOCUMENT.openapi).toBe('3.1.0');
    for (const name of Object.keys(schemas)) expect(() => validate(name, null)).not.toThrow();
  });

  it('declares exactly the top-level fields the request parser reads', () => {
    expect(Object.keys(schemas.ChatCompletionRequest.properties).sort()).toEqual(
      [...CHAT_COMPLETION_FIELDS].sort(),
    );
  });

  it('declares exactly the message fields the parser keeps', () => {
    const kept = new Set<string>();
    for (const message of [
      {
        role: 'assistant',
        name: 'a',
        content: 'x',
        tool_calls: [{}],
        function_call: {},
        tool_call_id: 'c',
        extra: 1,
      },
      {
        role: 'tool',
        name: 't',
        content: 'x',
        tool_call_id: 'c',
        tool_calls: [{}],
        function_call: {},
        extra: 1,
      },
    ]) {
      for (const key of Object.keys(parseMessage(message, 'm'))) kept.add(key);
    }
    expect(Object.keys(schemas.ChatMessage.properties).sort()).toEqual([...kept].sort());
  });

  it('accepts every body the parser accepts', () => {
    const bodies = [
      FULL_BODY,
      { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      {
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        temperature: null,
        stop: 'x',
        tool_choice: { type: 'function', function: { name: 'f' } },
      },
      {
        model: 'm',
        messages: [
          { role: 'function', name: 'f', content: 'r' },
          { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
        ],
      },
    ];
    for (const body of bodies) {
      expect(accepts(body)).toBe(true);
      validate.assert('ChatCompletionRequest', body);
    }
  });

  it.each([
    ['temperature above 2', { temperature: 2.5 }],
    ['max_tokens 0', { max_tokens: 0 }],
    ['five stop sequences', { stop: ['a', 'b', 'c', 'd', 'e'] }],
    ['n above the limit', { n: 129 }],
    ['a non-integer logit_bias key', { logit_bias: { abc: 1 } }],
    ['a tool_choice word OpenAI does not know', { tool_choice: 'maybe' }],
    ['a tool without type', { tools: [{}] }],
    ['no model', { model: undefined }],
    ['no messages', { messages: [] }],
    ['a user of 257 characters', { user: 'u'.repeat(257) }],
  ])('rejects, like the parser, %s', (_case, change) => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], ...change } as Record<
      string,
      unknown
    >;
    if ('model' in change && change.model === undefined) delete body.model;
    expect(accepts(body)).toBe(false);
    expect(validate('ChatCompletionRequest', body)).toBe(false);
  });

  it('documents every status a chat completion can answer with the error envelope', () => {
    const responses = OPENAPI_DOCUMENT.paths['/v1/chat/completions'].post.responses as Record<
      string,
      { content?: Record<string, { schema: unknown }> }
    >;
    expect(responses['401'].content!['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorEnvelope',
    });
    expect(
      validate('ErrorEnvelope', {
        error: {
          message: 'x',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
          source: 'gateway',
        },
      }),
    ).toBe(true);
  });

  it('tags the admin operations', () => {
    const admin = Object.entries(OPENAPI_DOCUMENT.paths).filter(([path]) =>
      path.startsWith('/admin/'),
    );
    expect(admin.length).toBeGreaterThanOrEqual(5);
    for (const [, operations] of admin)
      for (const operation of Object.values(operations)) expect(operation.tags).toEqual(['admin']);
  });
});

describe('OpenAPI document: /v1/messages', () => {
  it('describes the messages the gateway answers and the errors it sends', () => {
    const message = toAnthropicMessage(
      {
        content: 'Hi',
        toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
        finishReason: 'tool_calls',
        usage: { promptTokens: 5, completionTokens: 2, cachedTokens: 1 },
      },
      'alpha-k3',
    );
    expect(validate('AnthropicMessage', message)).toBe(true);
    const error = renderAnthropicError(new GatewayException('upstream_overloaded'), 'req_1');
    expect(validate('AnthropicErrorEnvelope', error.body)).toBe(true);
    const responses = OPENAPI_DOCUMENT.paths['/v1/messages'].post.responses as Record<
      string,
      unknown
    >;
    expect(Object.keys(responses)).toContain(String(error.status));
  });
});
