import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParser, EventSourceMessage } from 'eventsource-parser';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import type { ChatTurn, UpstreamStreamPart } from '../provider-adapter.interface';
import { UpstreamError } from '../../common/errors/upstream.error';
import {
  AnthropicStreamMapper,
  anthropicErrorFromResponse,
  anthropicHeaders,
  anthropicUrl,
  buildAnthropicRequest,
  mapAnthropicResponse,
} from './anthropic.mapping';

const FIXTURES = join(__dirname, '../../../test/fixtures/anthropic');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

/** Parses a recorded stream the way the wire delivers it: byte by byte, through a streaming decoder. */
function sseEvents(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  for (const byte of Buffer.from(text))
    parser.feed(decoder.decode(Uint8Array.of(byte), { stream: true }));
  return events;
}

const deployment = {
  name: 'claude/0',
  publicModel: 'claude',
  provider: 'anthropic',
  baseUrl: 'https://api.anthropic.com/v1/',
  apiKey: 'sk-ant-test',
  upstreamModel: 'claude-sonnet-4-5',
  timeoutMs: 1000,
  headers: { 'Anthropic-Beta': 'prompt-caching-2024-07-31', 'X-Api-Key': 'not-this-one' },
  mock: {},
} as unknown as DeploymentConfig;

const build = (messages: ChatTurn[], parameters: Record<string, unknown> = {}, stream = false) =>
  buildAnthropicRequest({ deployment, messages, parameters }, { stream, defaultMaxTokens: 4096 });

describe('Anthropic request mapping', () => {
  it('lifts system and developer turns to the top-level prompt and always sends max_tokens', () => {
    const body = build([
      { role: 'system', content: 'You are terse.' },
      { role: 'developer', content: 'Answer in French.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: 'You are terse.\n\nAnswer in French.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it("takes the client's max_completion_tokens or max_tokens over the default", () => {
    expect(build([{ role: 'user', content: 'x' }], { max_tokens: 50 }).max_tokens).toBe(50);
    expect(
      build([{ role: 'user', content: 'x' }], { max_completion_tokens: 70, max_tokens: 50 })
        .max_tokens,
    ).toBe(70);
  });

  it('maps sampling fields, stop, stream and user', () => {
    const body = build(
      [{ role: 'user', content: 'x' }],
      { temperature: 1.5, top_p: 0.9, stop: 'END', user: 'user-42' },
      true,
    );
    expect(body).toMatchObject({
      temperature: 1,
      top_p: 0.9,
      stop_sequences: ['END'],
      stream: true,
      metadata: { user_id: 'user-42' },
    });
    expect(build([{ role: 'user', content: 'x' }], { stop: ['a', 'b'] }).stop_sequences).toEqual([
      'a',
      'b',
    ]);
    expect(build([{ role: 'user', content: 'x' }])).not.toHaveProperty('stream');
  });

  it('maps image parts: data URLs to base64 blocks, http URLs to url blocks', () => {
    const content = [
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
    ] as unknown as string;
    expect(build([{ role: 'user', content }]).messages[0].content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('maps a tool round trip: tools, tool_calls to tool_use, tool messages merged into one user turn', () => {
    const body = build(
      [
        { role: 'user', content: 'Weather in SF and Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"SF"}' },
            },
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18C' },
        { role: 'tool', tool_call_id: 'call_2', content: '12C' },
        { role: 'user', content: 'Which is warmer?' },
      ],
      {
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'Weather now',
              parameters: { type: 'object', properties: { location: { type: 'string' } } },
            },
          },
          { type: 'function', function: { name: 'now' } },
        ],
        tool_choice: 'required',
        parallel_tool_calls: false,
      },
    );
    expect(body.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather now',
        input_schema: { type: 'object', properties: { location: { type: 'string' } } },
      },
      { name: 'now', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in SF and Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'SF' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { location: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '18C' },
          { type: 'tool_result', tool_use_id: 'call_2', content: '12C' },
          { type: 'text', text: 'Which is warmer?' },
        ],
      },
    ]);
  });

  it('maps every tool_choice form', () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    const choice = (tool_choice: unknown) =>
      build([{ role: 'user', content: 'x' }], { tools, tool_choice }).tool_choice;
    expect(choice('auto')).toEqual({ type: 'auto' });
    expect(choice('none')).toEqual({ type: 'none' });
    expect(choice('required')).toEqual({ type: 'any' });
    expect(choice({ type: 'function', function: { name: 'f' } })).toEqual({
      type: 'tool',
      name: 'f',
    });
    expect(choice(undefined)).toBeUndefined();
  });

  it('merges consecutive same-role turns and drops empty ones', () => {
    const body = build([
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: '' },
      { role: 'assistant', content: 'three' },
    ]);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'three' }] },
    ]);
  });

  it('builds the URL and headers: our key wins over a configured one', () => {
    expect(anthropicUrl(deployment)).toBe('https://api.anthropic.com/v1/messages');
    expect(anthropicHeaders(deployment, 'req-1')).toEqual({
      'anthropic-beta': 'prompt-caching-2024-07-31',
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-request-id': 'req-1',
    });
  });
});

describe('Anthropic response mapping', () => {
  it('joins text blocks and maps end_turn and usage', () => {
    expect(mapAnthropicResponse(JSON.parse(fixture('message-text.json')))).toEqual({
      content: "Bonjour ! Comment puis-je vous aider aujourd'hui ?",
      finishReason: 'stop',
      rawFinishReason: 'end_turn',
      usage: { promptTokens: 12, completionTokens: 14, cachedTokens: 0, cacheWriteTokens: 0 },
    });
  });

  it('maps tool_use blocks to tool_calls and counts cached prompt tokens as prompt tokens', () => {
    const result = mapAnthropicResponse(JSON.parse(fixture('message-tool-use.json')));
    expect(result.content).toBe("I'll check the weather in both cities.");
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls).toEqual([
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        type: 'function',
        function: {
          name: 'get_weather',
          arguments: '{"location":"San Francisco, CA","unit":"celsius"}',
        },
      },
      {
        id: 'toolu_01B12r81rs81mr028946mr0',
        type: 'function',
        function: {
          name: 'get_weather',
          arguments: '{"location":"Paris, France","unit":"celsius"}',
        },
      },
    ]);
    expect(result.usage).toEqual({
      promptTokens: 384 + 100 + 2048,
      completionTokens: 112,
      cachedTokens: 2048,
      cacheWriteTokens: 100,
    });
  });

  it.each([
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['refusal', 'content_filter'],
    ['something_new', 'stop'],
  ])('maps stop_reason %s to %s', (raw, expected) => {
    const body = {
      content: [{ type: 'text', text: 'x' }],
      stop_reason: raw,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    expect(mapAnthropicResponse(body).finishReason).toBe(expected);
  });

  it('refuses a body that is not a message', () => {
    expect(() => mapAnthropicResponse({ type: 'error' })).toThrow(
      expect.objectContaining({ kind: 'invalid_response' }),
    );
  });
});

describe('Anthropic stream mapping', () => {
  it('maps a recorded stream with text, a tool call and usage', () => {
    const mapper = new AnthropicStreamMapper();
    const parts: UpstreamStreamPart[] = sseEvents(fixture('stream-text-tool-use.sse')).flatMap(
      (event) => mapper.map({ event: event.event, data: event.data }),
    );
    expect(parts).toEqual([
      { type: 'delta', content: "Okay, let's check " },
      { type: 'delta', content: 'the weather for San Francisco — 🌁:' },
      {
        type: 'delta',
        toolCalls: [
          {
            index: 0,
            id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      },
      { type: 'delta', toolCalls: [{ index: 0, function: { arguments: '{"location":' } }] },
      { type: 'delta', toolCalls: [{ index: 0, function: { arguments: ' "San Francisco, CA"' } }] },
      {
        type: 'delta',
        toolCalls: [{ index: 0, function: { arguments: ', "unit": "fahrenheit"}' } }],
      },
      { type: 'delta', finishReason: 'tool_calls', rawFinishReason: 'tool_use' },
      {
        type: 'usage',
        usage: { promptTokens: 472, completionTokens: 89, cachedTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
    expect(mapper.complete).toBe(true);
  });

  it('numbers tool calls by their order among tool calls, not by content block', () => {
    const mapper = new AnthropicStreamMapper();
    const start = (index: number, id: string) =>
      mapper.map({
        data: JSON.stringify({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id, name: 'f', input: {} },
        }),
      });
    mapper.map({
      data: JSON.stringify({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      }),
    });
    expect(start(1, 'toolu_a')[0]).toMatchObject({ toolCalls: [{ index: 0, id: 'toolu_a' }] });
    expect(start(2, 'toolu_b')[0]).toMatchObject({ toolCalls: [{ index: 1, id: 'toolu_b' }] });
    const delta = mapper.map({
      data: JSON.stringify({
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'input_json_delta', partial_json: '{}' },
      }),
    });
    expect(delta).toEqual([
      { type: 'delta', toolCalls: [{ index: 1, function: { arguments: '{}' } }] },
    ]);
  });

  it('throws an overloaded error event as a retryable upstream_overloaded error, after relaying what came before', () => {
    const mapper = new AnthropicStreamMapper();
    const events = sseEvents(fixture('stream-error-overloaded.sse'));
    const before = events.slice(0, -1).flatMap((event) => mapper.map(event));
    expect(before).toEqual([{ type: 'delta', content: 'Hel' }]);
    let thrown: unknown;
    try {
      mapper.map(events[events.length - 1]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UpstreamError);
    expect(thrown).toMatchObject({ kind: 'upstream_overloaded', retryable: true });
    expect(mapper.complete).toBe(false);
  });

  it('refuses data that is not JSON', () => {
    expect(() =>
      new AnthropicStreamMapper().map({ event: 'message_start', data: '{oops' }),
    ).toThrow(expect.objectContaining({ kind: 'invalid_response' }));
  });
});

describe('Anthropic error mapping', () => {
  it.each([
    [400, 'error-invalid-request.json', 'bad_request', false],
    [400, 'error-prompt-too-long.json', 'context_length', false],
    [401, 'error-authentication.json', 'upstream_auth', true],
    [529, 'error-overloaded.json', 'upstream_overloaded', true],
    [429, 'error-rate-limit.json', 'rate_limited', true],
  ])('HTTP %i %s -> %s', (status, file, kind, retryable) => {
    const error = anthropicErrorFromResponse(status, fixture(file), '17');
    expect(error).toMatchObject({
      kind,
      retryable,
      options: { upstreamStatus: status, retryAfterSeconds: 17 },
    });
  });

  it.each([
    [403, 'permission_error', 'upstream_auth'],
    [404, 'not_found_error', 'unavailable'],
    [413, 'request_too_large', 'bad_request'],
    [500, 'api_error', 'unavailable'],
  ])('HTTP %i %s -> %s', (status, type, kind) => {
    const body = JSON.stringify({ type: 'error', error: { type, message: 'x' } });
    expect(anthropicErrorFromResponse(status, body).kind).toBe(kind);
  });

  it('treats an exhausted credit balance (a 400 invalid_request_error) as our account problem, not a bad request', () => {
    const body = JSON.stringify({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
      },
    });
    expect(anthropicErrorFromResponse(400, body)).toMatchObject({
      kind: 'upstream_auth',
      retryable: true,
    });
  });

  it('falls back to the status when the body is not Anthropic JSON (e.g. a proxy page)', () => {
    expect(anthropicErrorFromResponse(502, '<html>Bad gateway</html>').kind).toBe('unavailable');
    expect(anthropicErrorFromResponse(429, '').kind).toBe('rate_limited');
  });

  it('an overloaded 529 reaches the client as a 503 upstream_overloaded, a 400 as upstream_bad_request', () => {
    expect(
      anthropicErrorFromResponse(529, fixture('error-overloaded.json')).toGatewayException(),
    ).toMatchObject({ code: 'upstream_overloaded', status: 503 });
    expect(
      anthropicErrorFromResponse(400, fixture('error-invalid-request.json')).toGatewayException()
        .code,
    ).toBe('upstream_bad_request');
  });
});
