import { GatewayException } from '../common/errors/gateway.exception';
import { RESPONSE_FIELDS } from '../formats/responses/dto/create-response.dto';
import { withItemIds } from '../formats/responses/response-ids';
import { encoder, parse, run, text } from '../formats/responses/responses-stream.fixture';
import {
  failedResponse,
  finishedResponse,
  outputItemsOf,
  responseSkeleton,
} from '../formats/responses/responses.response';
import { inputItemsPage } from '../formats/responses/store/input-items-page';
import { OPENAPI_DOCUMENT } from './openapi.document';
import { RESPONSE_ANSWER_SCHEMAS } from './responses.paths';
import { schemaValidator } from './schema-validator.fixture';
import { bodyPipe as pipe } from '../formats/responses/responses-body.fixture';

// The /v1/responses schemas against the body pipe (what it accepts, what it refuses) and against
// what the format's builders answer: the object, its stream events, the stored items' list.

const schemas = OPENAPI_DOCUMENT.components.schemas;
const validate = schemaValidator(OPENAPI_DOCUMENT.components);
const accepts = (body: Record<string, unknown>) => {
  try {
    pipe.transform(body);
    return true;
  } catch (error) {
    if (error instanceof GatewayException) return false;
    throw error;
  }
};

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const TOOLS = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
    strict: true,
  },
  {
    type: 'custom',
    name: 'apply_patch',
    format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
  },
  { type: 'custom', name: 'note', format: { type: 'text' } },
];
const FULL_BODY = {
  model: 'alpha-k3',
  input: [
    { role: 'developer', content: 'Be brief.' },
    { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Be kind.' }] },
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'What is this?' },
        { type: 'input_image', image_url: PNG, detail: 'low' },
        { type: 'input_image', image_url: 'HTTPS://x.example/y.png' },
      ],
    },
    {
      type: 'message',
      id: 'msg_1',
      status: 'completed',
      role: 'assistant',
      content: [
        { type: 'output_text', text: 'A cat.', annotations: [] },
        { type: 'refusal', refusal: 'No more.' },
      ],
    },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'x' },
    { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'get_weather', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c1', output: 'Sunny' },
    { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
    {
      type: 'custom_tool_call_output',
      call_id: 'c2',
      output: [
        { type: 'input_text', text: 'Done' },
        { type: 'input_image', image_url: PNG },
      ],
    },
  ],
  instructions: 'Answer briefly.',
  tools: TOOLS,
  tool_choice: {
    type: 'allowed_tools',
    mode: 'required',
    tools: [{ type: 'custom', name: 'apply_patch' }],
  },
  parallel_tool_calls: false,
  max_output_tokens: 100,
  temperature: 0.5,
  top_p: 1,
  text: {
    format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
    verbosity: 'low',
  },
  reasoning: { effort: 'low', summary: 'auto' },
  stream: true,
  store: false,
  previous_response_id: 'resp_1',
  metadata: { team: 'a' },
  user: 'u',
  include: ['reasoning.encrypted_content'],
};

describe('OpenAPI document: /v1/responses', () => {
  it('declares exactly the top-level fields the body parser reads', () => {
    expect(Object.keys(schemas.CreateResponseRequest.properties).sort()).toEqual(
      [...RESPONSE_FIELDS].sort(),
    );
  });

  it('accepts every body the parser accepts', () => {
    const bodies: Record<string, unknown>[] = [
      FULL_BODY,
      { model: 'm', input: 'Hi' },
      { model: 'm', input: 'Hi', tools: null, tool_choice: null, text: null, metadata: null },
      { model: 'm', input: [], tools: TOOLS, tool_choice: 'required', text: {} },
      {
        model: 'm',
        input: 'Hi',
        tools: TOOLS,
        tool_choice: { type: 'function', name: 'get_weather' },
        text: { format: { type: 'json_object' }, verbosity: null },
        reasoning: { effort: null },
      },
    ];
    for (const body of bodies) {
      expect(accepts(body)).toBe(true);
      validate.assert('CreateResponseRequest', body);
    }
  });

  it.each([
    ['no model', { model: undefined }],
    ['no input', { input: undefined }],
    ['an empty content array', { input: [{ role: 'user', content: [] }] }],
    ['a role OpenAI does not know', { input: [{ role: 'tool', content: 'x' }] }],
    [
      'an output_text part in a user message',
      { input: [{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }] },
    ],
    [
      'an image by file_id',
      { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }] },
    ],
    [
      'an image URL that is neither http(s) nor data',
      { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x/y' }] }] },
    ],
    ['an item_reference', { input: [{ type: 'item_reference', id: 'msg_1' }] }],
    [
      'a function_call without call_id',
      { input: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
    ],
    ['a built-in tool', { tools: [{ type: 'web_search' }] }],
    [
      'a custom tool grammar without syntax',
      { tools: [{ type: 'custom', name: 'p', format: { type: 'grammar', definition: 'x' } }] },
    ],
    ['a tool_choice word OpenAI does not know', { tool_choice: 'maybe' }],
    ['temperature above 2', { temperature: 2.5 }],
    ['max_output_tokens 0', { max_output_tokens: 0 }],
    [
      'a json_schema format without a name',
      { text: { format: { type: 'json_schema', schema: {} } } },
    ],
    ['a reasoning summary OpenAI does not know', { reasoning: { summary: 'long' } }],
    [
      '17 metadata keys',
      { metadata: Object.fromEntries([...Array(17).keys()].map((i) => [`k${i}`, 'v'])) },
    ],
    ['a metadata value that is no string', { metadata: { a: 1 } }],
    ['an empty previous_response_id', { previous_response_id: '' }],
  ])('rejects, like the parser, %s', (_case, change: Record<string, unknown>) => {
    const body: Record<string, unknown> = { model: 'm', input: 'Hi', ...change };
    for (const field of Object.keys(change)) if (change[field] === undefined) delete body[field];
    expect(accepts(body)).toBe(false);
    expect(validate('CreateResponseRequest', body)).toBe(false);
  });

  it('describes the response objects the gateway answers and stores', () => {
    const request = pipe.transform({ ...FULL_BODY, store: true });
    const skeleton = responseSkeleton(request, {
      id: 'resp_abc',
      createdAt: 1_700_000_000,
      model: 'alpha-k3',
      store: true,
    });
    validate.assert('ResponseObject', skeleton);
    const output = outputItemsOf(
      {
        content: 'Patching.',
        toolCalls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          {
            id: 'c2',
            type: 'function',
            function: { name: 'apply_patch', arguments: '{"input":"x"}' },
          },
        ],
        finishReason: 'tool_calls',
      },
      new Set(['apply_patch']),
    );
    expect(output.map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'custom_tool_call',
    ]);
    const usage = { promptTokens: 9, completionTokens: 3, cachedTokens: 2, reasoningTokens: 1 };
    validate.assert('ResponseObject', finishedResponse(skeleton, output, 'length', usage));
    validate.assert(
      'ResponseObject',
      failedResponse(skeleton, output, new GatewayException('upstream_error')),
    );
    validate.assert('ResponseInputItemList', inputItemsPage(withItemIds(request.input), {}));
    validate.assert('ResponseDeleted', { id: 'resp_abc', object: 'response', deleted: true });
  });

  it('describes every event a stream sends, and no other: text, calls, cut, failure', async () => {
    const calls = await run(
      [
        [text('Let me ')],
        [
          {
            type: 'delta',
            toolCalls: [
              { index: 0, id: 'c1', function: { name: 'get_weather', arguments: '{"city":' } },
              { index: 1, id: 'c2', function: { name: 'apply_patch', arguments: '{"input":"x"}' } },
            ],
          },
        ],
        [{ type: 'delta', toolCalls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }],
        [{ type: 'delta', finishReason: 'tool_calls' }],
      ],
      { tools: TOOLS },
    );
    const cut = await run([[text('Once upon', 'length')]]);
    const { events } = encoder();
    const failed = parse(events.encode([text('Hi')]) + events.error(new Error('boom')));
    const sent = [...calls.wire, ...cut.wire, ...failed];
    for (const event of sent) validate.assert('ResponseStreamEvent', event);
    const declared = RESPONSE_ANSWER_SCHEMAS.ResponseStreamEvent.oneOf.flatMap(
      (event) => event.properties.type.enum,
    );
    expect(new Set(sent.map((event) => event.type))).toEqual(new Set(declared));
    expect(validate('ResponseStreamEvent', { type: 'response.done', sequence_number: 0 })).toBe(
      false,
    );
  });
});
