import { GatewayException } from '../../common/errors/gateway.exception';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import { buildAnthropicRequest } from '../../providers/anthropic/anthropic.request';
import { buildGeminiRequest } from '../../providers/gemini/gemini.request';
import { toChatForm } from './responses.request';
import type { InputItem } from './responses.types';
import { parseBody as request } from './responses-body.fixture';

const WEATHER = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};
const APPLY_PATCH = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Edit files.',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
};

/** A tool round trip as Codex sends it back: text, two parallel calls, their outputs. */
const ROUND_TRIP = [
  { role: 'user', content: 'Weather in Oslo and Bergen, then fix the README.' },
  { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAA' },
  { role: 'assistant', content: 'Checking.' },
  { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
  { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Bergen"}' },
  { type: 'function_call_output', call_id: 'call_a', output: '{"temp":3}' },
  {
    type: 'function_call_output',
    call_id: 'call_b',
    output: [
      { type: 'input_text', text: 'Radar: ' },
      { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
    ],
  },
  { type: 'custom_tool_call', call_id: 'call_c', name: 'apply_patch', input: '*** Begin Patch\n' },
  { type: 'custom_tool_call_output', call_id: 'call_c', output: 'Done.' },
];

describe('toChatForm', () => {
  it('puts the instructions first as a system turn, then the input', () => {
    const form = toChatForm(request({ instructions: 'Be brief.', input: 'Hello' }));
    expect(form.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ]);
    expect(form.parameters).toEqual({});
  });

  it('keeps a message of several parts as parts, images as image_url parts', () => {
    const form = toChatForm(
      request({
        input: [
          {
            role: 'developer',
            content: [
              { type: 'input_text', text: '<permissions/>' },
              { type: 'input_text', text: '<env/>' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is it?' },
              { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'high' },
            ],
          },
        ],
      }),
    );
    expect(form.messages).toEqual([
      {
        role: 'developer',
        content: [
          { type: 'text', text: '<permissions/>' },
          { type: 'text', text: '<env/>' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is it?' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'high' } },
        ],
      },
    ]);
  });

  it('joins calls to the assistant turn before them and answers them with tool turns', () => {
    const form = toChatForm(request({ tools: [WEATHER, APPLY_PATCH], input: ROUND_TRIP }));
    expect(form.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo and Bergen, then fix the README.' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
          },
          {
            id: 'call_b',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Bergen"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{"temp":3}' },
      { role: 'tool', tool_call_id: 'call_b', content: 'Radar: ' },
      // The image a tool returned follows the tool turns, which take text only.
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'auto' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_c',
            type: 'function',
            function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch\\n"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_c', content: 'Done.' },
    ]);
  });

  it('puts the chain of previous_response_id before the new input, without its instructions', () => {
    const history: InputItem[] = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_a',
        name: 'get_weather',
        arguments: '{}',
        status: 'completed',
      },
    ];
    const form = toChatForm(
      request({
        instructions: 'New rules.',
        previous_response_id: 'resp_1',
        tools: [WEATHER],
        input: [{ type: 'function_call_output', call_id: 'call_a', output: 'Sunny' }],
      }),
      history,
    );
    expect(form.messages).toEqual([
      { role: 'system', content: 'New rules.' },
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'Sunny' },
    ]);
  });

  it('refuses an output that answers no call, naming it', () => {
    try {
      toChatForm(request({ input: [{ type: 'function_call_output', call_id: 'x', output: '1' }] }));
      throw new Error('accepted');
    } catch (error) {
      expect((error as GatewayException).param).toBe('input[0].call_id');
    }
  });

  it('refuses an input that leaves the model nothing to answer', () => {
    const only = [{ type: 'reasoning', summary: [] }];
    expect(() => toChatForm(request({ instructions: 'x', input: only }))).toThrow(
      expect.objectContaining({ code: 'invalid_parameter', param: 'input' }),
    );
  });

  it('maps the settings to their chat-completions names, metadata staying behind', () => {
    const form = toChatForm(
      request({
        tools: [WEATHER, APPLY_PATCH],
        tool_choice: { type: 'custom', name: 'apply_patch' },
        parallel_tool_calls: false,
        max_output_tokens: 256,
        temperature: 0.2,
        top_p: 0.5,
        user: 'u-1',
        reasoning: { effort: 'low', summary: 'auto' },
        text: {
          format: { type: 'json_schema', name: 'a', schema: { type: 'object' }, strict: true },
        },
        metadata: { team: 'x' },
        include: ['reasoning.encrypted_content'],
      }),
    );
    expect(form.parameters).toEqual({
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather of a city',
            parameters: WEATHER.parameters,
            strict: true,
          },
        },
        {
          type: 'function',
          function: {
            name: 'apply_patch',
            description: expect.stringContaining('Edit files.'),
            parameters: {
              type: 'object',
              properties: { input: { type: 'string', description: expect.any(String) } },
              required: ['input'],
              additionalProperties: false,
            },
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'apply_patch' } },
      parallel_tool_calls: false,
      max_completion_tokens: 256,
      temperature: 0.2,
      top_p: 0.5,
      user: 'u-1',
      reasoning_effort: 'low',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'a', schema: { type: 'object' }, strict: true },
      },
    });
    const patchTool = (form.parameters.tools as Array<{ function: { description: string } }>)[1];
    expect(patchTool.function.description).toContain('lark grammar:\nstart: begin_patch');
  });

  it('narrows the tools to an allowed_tools choice and uses its mode', () => {
    const form = toChatForm(
      request({
        tools: [WEATHER, APPLY_PATCH],
        tool_choice: {
          type: 'allowed_tools',
          mode: 'required',
          tools: [{ type: 'function', name: 'get_weather' }],
        },
      }),
    );
    expect((form.parameters.tools as unknown[]).length).toBe(1);
    expect(form.parameters.tool_choice).toBe('required');
  });

  it('sends no tool settings without tools, and json_object as response_format', () => {
    const form = toChatForm(
      request({
        tool_choice: 'none',
        parallel_tool_calls: true,
        text: { format: { type: 'json_object' } },
      }),
    );
    expect(form.parameters).toEqual({ response_format: { type: 'json_object' } });
    expect(toChatForm(request({ text: { format: { type: 'text' } } })).parameters).toEqual({});
  });

  describe('served by native providers', () => {
    const deployment = { upstreamModel: 'm', baseUrl: 'http://x' } as DeploymentConfig;
    const form = toChatForm(
      request({ instructions: 'Sys.', tools: [WEATHER, APPLY_PATCH], input: ROUND_TRIP }),
    );

    it('Anthropic: tool_use and tool_result blocks with the call ids, the patch as input', () => {
      const body = buildAnthropicRequest(
        { deployment, messages: form.messages, parameters: form.parameters },
        { stream: false, defaultMaxTokens: 1024 },
      );
      expect(body.system).toBe('Sys.');
      expect(body.tools?.map((tool) => tool.name)).toEqual(['get_weather', 'apply_patch']);
      const blocks = body.messages.flatMap((message) =>
        message.content.map((block) => `${message.role}:${block.type}`),
      );
      expect(blocks).toEqual([
        'user:text',
        'assistant:text',
        'assistant:tool_use',
        'assistant:tool_use',
        'user:tool_result',
        'user:tool_result',
        'user:image',
        'assistant:tool_use',
        'user:tool_result',
      ]);
      const patchCall = body.messages[3].content[0];
      expect(patchCall).toEqual({
        type: 'tool_use',
        id: 'call_c',
        name: 'apply_patch',
        input: { input: '*** Begin Patch\n' },
      });
    });

    it('Gemini: functionCall and functionResponse parts by name', () => {
      const body = buildGeminiRequest({ messages: form.messages, parameters: form.parameters });
      expect(body.systemInstruction).toEqual({ parts: [{ text: 'Sys.' }] });
      const parts = body.contents.flatMap((content) =>
        content.parts.map((part) => `${content.role}:${Object.keys(part)[0]}`),
      );
      expect(parts).toEqual([
        'user:text',
        'model:text',
        'model:functionCall',
        'model:functionCall',
        'user:functionResponse',
        'user:functionResponse',
        'user:inlineData',
        'model:functionCall',
        'user:functionResponse',
      ]);
    });
  });
});
