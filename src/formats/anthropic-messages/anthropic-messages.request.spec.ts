import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toChatRequest } from './anthropic-messages.request';
import type { MessagesRequest } from './anthropic-messages.types';
import { parseMessagesRequest } from './dto/create-message.dto';

const CLAUDE_CODE = JSON.parse(
  readFileSync(
    join(__dirname, '../../../test/fixtures/anthropic/claude-code-request.json'),
    'utf8',
  ),
) as { body: Record<string, unknown> };

function request(extra: Record<string, unknown>): MessagesRequest {
  return parseMessagesRequest(
    Object.assign(
      { model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] },
      extra,
    ),
  );
}

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('toChatRequest', () => {
  it('turns system blocks into one system message and keeps the turns in order', () => {
    const { messages } = toChatRequest(
      request({
        system: [
          { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Answer in French.' },
        ],
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: [{ type: 'text', text: 'Bonjour' }] },
          { role: 'system', content: 'Now in German.' },
          { role: 'user', content: [{ type: 'text', text: 'And now?' }] },
        ],
      }),
    );
    expect(messages).toEqual([
      { role: 'system', content: 'You are terse.\n\nAnswer in French.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Bonjour' },
      { role: 'system', content: 'Now in German.' },
      { role: 'user', content: 'And now?' },
    ]);
  });

  it('maps images: base64 to a data URL, a URL as it is', () => {
    const { messages, untranslatable } = toChatRequest(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare' },
              {
                type: 'image',
                source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
              },
              { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            ],
          },
        ],
      }),
    );
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
    expect(untranslatable).toEqual([]);
  });

  it('maps documents: a PDF to a file part, text with its title, content to its blocks', () => {
    const { messages, untranslatable } = toChatRequest(
      request({
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'document',
                title: 'report.pdf',
                source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
              },
              {
                type: 'document',
                title: 'Notes',
                source: { type: 'text', media_type: 'text/plain', data: 'a, b' },
              },
              {
                type: 'document',
                source: { type: 'content', content: [{ type: 'text', text: 'c' }] },
              },
              { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
            ],
          },
        ],
      }),
    );
    expect(messages[0].content).toEqual([
      {
        type: 'file',
        file: { filename: 'report.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
      },
      { type: 'text', text: 'Notes\n\na, b' },
      { type: 'text', text: 'c' },
    ]);
    expect(untranslatable).toEqual([
      {
        path: 'messages.0.content.3.source',
        problem: 'a document by URL can only be sent to an Anthropic deployment',
      },
    ]);
  });

  it('turns tool_use into tool calls and tool_result into tool turns, ids and order kept', () => {
    const { messages } = toChatRequest(
      request({
        tools: [WEATHER_TOOL],
        messages: [
          { role: 'user', content: 'Weather in Paris and Rome?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Two cities.', signature: 'EqQBCgIYAh' },
              { type: 'text', text: 'Checking both.' },
              { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
              { type: 'tool_use', id: 'toolu_02', name: 'get_weather', input: { city: 'Rome' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_01', content: '18°C' },
              {
                type: 'tool_result',
                tool_use_id: 'toolu_02',
                is_error: true,
                content: [
                  { type: 'text', text: 'Rome: ' },
                  { type: 'text', text: 'station offline' },
                  { type: 'image', source: { type: 'url', url: 'https://example.com/map.png' } },
                ],
              },
              { type: 'text', text: 'Also, which is warmer?' },
            ],
          },
        ],
      }),
    );
    expect(messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          {
            id: 'toolu_01',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'toolu_02',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01', content: '18°C' },
      { role: 'tool', tool_call_id: 'toolu_02', content: 'Rome: station offline' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'https://example.com/map.png' } },
          { type: 'text', text: 'Also, which is warmer?' },
        ],
      },
    ]);
  });

  it('drops thinking-only assistant turns and gives a tool-only turn null content', () => {
    const { messages } = toChatRequest(
      request({
        messages: [
          { role: 'user', content: 'Go' },
          { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'xyz' }] },
          { role: 'user', content: 'Again' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'noop', input: {} }] },
        ],
      }),
    );
    expect(messages).toEqual([
      { role: 'user', content: 'Go' },
      { role: 'user', content: 'Again' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't1', type: 'function', function: { name: 'noop', arguments: '{}' } }],
      },
    ]);
  });

  it('maps the parameters', () => {
    const { parameters } = toChatRequest(
      request({
        temperature: 0.2,
        top_p: 0.9,
        top_k: 40,
        stop_sequences: ['END', '###'],
        metadata: { user_id: 'user-42' },
        thinking: { type: 'enabled', budget_tokens: 2048 },
        tools: [WEATHER_TOOL, { type: 'web_search_20250305', name: 'web_search' }],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        service_tier: 'auto',
      }),
    );
    expect(parameters).toEqual({
      max_completion_tokens: 256,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop: ['END', '###'],
      user: 'user-42',
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather of a city',
            parameters: WEATHER_TOOL.input_schema,
          },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
  });

  it.each([
    [{ type: 'auto' }, { tool_choice: 'auto' }],
    [{ type: 'none' }, { tool_choice: 'none' }],
    [
      { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
      {
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        parallel_tool_calls: false,
      },
    ],
  ])('maps tool_choice %j', (choice, expected) => {
    const { parameters } = toChatRequest(request({ tools: [WEATHER_TOOL], tool_choice: choice }));
    expect(parameters).toEqual(expect.objectContaining(expected));
  });

  it('sends no tool_choice when no custom tool is left', () => {
    const { parameters } = toChatRequest(
      request({
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
      }),
    );
    expect(parameters).toEqual({ max_completion_tokens: 256 });
  });

  it('translates the recorded Claude Code request', () => {
    const { messages, parameters, untranslatable } = toChatRequest(
      parseMessagesRequest(structuredClone(CLAUDE_CODE.body)),
    );
    expect(messages.map((turn) => turn.role)).toEqual([
      'system',
      'user',
      'system',
      'assistant',
      'tool',
    ]);
    expect(messages[0].content).toMatch(
      /^x-anthropic-billing-header: .*\n\nYou are a Claude agent/s,
    );
    expect(messages[3].tool_calls).toEqual([
      {
        id: 'toolu_01RecordedRead0000000001',
        type: 'function',
        function: { name: 'Read', arguments: '{"file_path":"/tmp/cc-rec/work/README.md"}' },
      },
    ]);
    expect(messages[4]).toEqual({
      role: 'tool',
      tool_call_id: 'toolu_01RecordedRead0000000001',
      content: '1\t# demo\n2\t',
    });
    expect((parameters.tools as unknown[]).length).toBe(12);
    expect(parameters.user).toMatch(/"session_id"/);
    expect(parameters).not.toHaveProperty('thinking');
    expect(parameters).not.toHaveProperty('context_management');
    expect(untranslatable).toEqual([]);
  });
});
