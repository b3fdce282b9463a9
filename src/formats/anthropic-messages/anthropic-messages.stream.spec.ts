import { Stream } from '@anthropic-ai/sdk/core/streaming';
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayException } from '../../common/errors/gateway.exception';
import { UpstreamError } from '../../common/errors/upstream.error';
import type { TokenUsage, UpstreamChatResult } from '../../providers/provider-adapter.interface';
import { toAnthropicMessage } from './anthropic-messages.response';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import type { CanonicalStreamEvent as MessagesStreamEvent } from '../../pipeline/canonical';
import { AnthropicMessageEvents, PING_FRAME } from './anthropic-messages.stream';

/** The stream's end as the pipeline hands it over; the deployment is not read. */
const end = (usage: TokenUsage) => ({ usage, deployment: {} as DeploymentConfig });

const USAGE: TokenUsage = {
  promptTokens: 3281,
  completionTokens: 40,
  cachedTokens: 3072,
  cacheWriteTokens: 188,
};

interface Event {
  event: string;
  data: any;
}

function events(sse: string): Event[] {
  return sse
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const [eventLine, dataLine, ...rest] = frame.split('\n');
      expect(rest).toEqual([]);
      expect(eventLine).toMatch(/^event: /);
      expect(dataLine).toMatch(/^data: /);
      return { event: eventLine.slice(7), data: JSON.parse(dataLine.slice(6)) };
    });
}

/** What the official SDK's messages.stream(...).finalMessage() rebuilds from the events. */
async function finalMessage(sse: string): Promise<Record<string, unknown>> {
  const stream = Stream.fromSSEResponse(new Response(sse), new AbortController());
  const message = (await MessageStream.fromReadableStream(
    stream.toReadableStream(),
  ).finalMessage()) as unknown as Record<string, unknown>;
  // The SDK's own addition for structured outputs, not part of the wire message.
  delete message.parsed_output;
  return message;
}

function encodeAll(batches: MessagesStreamEvent[][], usage = USAGE): string {
  const encoder = new AnthropicMessageEvents('claude-sonnet-4-5', 'req_1');
  return batches.map((batch) => encoder.encode(batch)).join('') + encoder.end(end(usage));
}

describe('AnthropicMessageEvents (translated deployments)', () => {
  it('writes a text answer in Anthropic order, the usage in message_delta', () => {
    const sse = encodeAll([
      [{ type: 'delta', content: 'Hel' }],
      [
        { type: 'delta', content: 'lo' },
        { type: 'delta', finishReason: 'stop' },
      ],
    ]);
    expect(events(sse).map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const [start, blockStart, , , , delta] = events(sse);
    expect(start.data.message).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
    expect(blockStart.data).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    expect(delta.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: {
        input_tokens: 21,
        output_tokens: 40,
        cache_creation_input_tokens: 188,
        cache_read_input_tokens: 3072,
      },
    });
  });

  it('closes each block before the next opens, with indices from 0', () => {
    const sse = encodeAll([
      [{ type: 'delta', content: 'Checking.' }],
      [
        {
          type: 'delta',
          toolCalls: [
            {
              index: 0,
              id: 'call_a',
              type: 'function',
              function: { name: 'get_weather', arguments: '' },
            },
          ],
        },
      ],
      [{ type: 'delta', toolCalls: [{ index: 0, function: { arguments: '{"city":' } }] }],
      [{ type: 'delta', toolCalls: [{ index: 0, function: { arguments: '"Paris"}' } }] }],
      [
        {
          type: 'delta',
          toolCalls: [
            {
              index: 1,
              id: 'call_b',
              function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
            },
          ],
        },
      ],
      [{ type: 'delta', finishReason: 'tool_calls' }],
    ]);
    const sequence = events(sse).map(
      (e) => `${e.event}${e.data.index === undefined ? '' : ` ${e.data.index}`}`,
    );
    expect(sequence).toEqual([
      'message_start',
      'content_block_start 0',
      'content_block_delta 0',
      'content_block_stop 0',
      'content_block_start 1',
      'content_block_delta 1',
      'content_block_delta 1',
      'content_block_stop 1',
      'content_block_start 2',
      'content_block_delta 2',
      'content_block_stop 2',
      'message_delta',
      'message_stop',
    ]);
    expect(events(sse)[4].data.content_block).toEqual({
      type: 'tool_use',
      id: 'call_a',
      name: 'get_weather',
      input: {},
    });
    expect(events(sse)[5].data.delta).toEqual({
      type: 'input_json_delta',
      partial_json: '{"city":',
    });
    expect(events(sse).at(-2)!.data.delta.stop_reason).toBe('tool_use');
  });

  it('rebuilds, through the official SDK, exactly the JSON answer of the same result', async () => {
    const result: UpstreamChatResult = {
      content: 'Let me look.',
      toolCalls: [
        {
          id: 'call_a',
          type: 'function',
          function: { name: 'Read', arguments: '{"file_path":"/tmp/a.ts","limit":20}' },
        },
        {
          id: 'call_b',
          type: 'function',
          function: { name: 'Glob', arguments: '{"pattern":"**/*.md"}' },
        },
      ],
      finishReason: 'tool_calls',
      usage: USAGE,
    };
    // The same answer as a stream, the arguments cut at awkward places.
    const sse = encodeAll([
      [
        { type: 'delta', content: 'Let ' },
        { type: 'delta', content: 'me look.' },
      ],
      [
        {
          type: 'delta',
          toolCalls: [
            { index: 0, id: 'call_a', function: { name: 'Read', arguments: '{"file_pa' } },
          ],
        },
      ],
      [
        {
          type: 'delta',
          toolCalls: [{ index: 0, function: { arguments: 'th":"/tmp/a.ts","li' } }],
        },
      ],
      [{ type: 'delta', toolCalls: [{ index: 0, function: { arguments: 'mit":20}' } }] }],
      [
        {
          type: 'delta',
          toolCalls: [
            {
              index: 1,
              id: 'call_b',
              function: { name: 'Glob', arguments: '{"pattern":"**/*.md"}' },
            },
          ],
          finishReason: 'tool_calls',
        },
      ],
    ]);
    const json = toAnthropicMessage(result, 'claude-sonnet-4-5');
    const rebuilt = await finalMessage(sse);
    expect(rebuilt).toEqual(Object.assign({}, json, { id: rebuilt.id }));
  });

  it('gives an empty answer no block, and still a whole message', async () => {
    const sse = encodeAll([[{ type: 'delta', finishReason: 'length' }]], {
      promptTokens: 5,
      completionTokens: 1,
    });
    expect(events(sse).map((e) => e.event)).toEqual([
      'message_start',
      'message_delta',
      'message_stop',
    ]);
    const json = toAnthropicMessage(
      { content: '', finishReason: 'length', usage: { promptTokens: 5, completionTokens: 1 } },
      'claude-sonnet-4-5',
    );
    const rebuilt = await finalMessage(sse);
    expect(rebuilt).toEqual(Object.assign({}, json, { id: rebuilt.id }));
  });

  it('sets stop_sequence where the provider names the sequence', () => {
    const sse = encodeAll([
      [
        { type: 'delta', content: 'a' },
        { type: 'delta', finishReason: 'stop', stopSequence: '###' } as MessagesStreamEvent,
      ],
    ]);
    expect(events(sse).at(-2)!.data.delta).toEqual({
      stop_reason: 'stop_sequence',
      stop_sequence: '###',
    });
  });

  it('refuses arguments for a tool call whose block was closed', () => {
    const encoder = new AnthropicMessageEvents('m', 'req_1');
    encoder.encode([
      {
        type: 'delta',
        toolCalls: [{ index: 0, id: 'a', function: { name: 'x', arguments: '{' } }],
      },
    ]);
    encoder.encode([
      {
        type: 'delta',
        toolCalls: [{ index: 1, id: 'b', function: { name: 'y', arguments: '{}' } }],
      },
    ]);
    expect(() =>
      encoder.encode([{ type: 'delta', toolCalls: [{ index: 0, function: { arguments: '}' } }] }]),
    ).toThrow(UpstreamError);
  });

  it('ignores other choices', () => {
    const encoder = new AnthropicMessageEvents('m', 'req_1');
    expect(encoder.encode([{ type: 'delta', choiceIndex: 1, content: 'x' }])).toBe('');
  });
});

describe('AnthropicMessageEvents (pass-through deployments)', () => {
  const recorded = readFileSync(
    join(__dirname, '../../../test/fixtures/anthropic/stream-thinking-tool-use.sse'),
    'utf8',
  );
  const upstreamEvents: MessagesStreamEvent[] = recorded
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      return { type: 'native', event: eventLine.slice(7), data: dataLine.slice(6) };
    });

  it('relays the events byte for byte, but for the model of message_start', () => {
    const encoder = new AnthropicMessageEvents('my-alias', 'req_1');
    const sse =
      encoder.encode(upstreamEvents.slice(0, 3)) +
      encoder.encode(upstreamEvents.slice(3)) +
      encoder.end(end(USAGE));
    const expected = recorded.replace('"model":"claude-sonnet-4-5-20250929"', '"model":"my-alias"');
    expect(sse).toBe(expected);
  });

  it('writes a payload of several lines as several data lines', () => {
    const encoder = new AnthropicMessageEvents('m', 'req_1');
    expect(encoder.encode([{ type: 'native', event: 'ping', data: '{\n"type": "ping"}' }])).toBe(
      'event: ping\ndata: {\ndata: "type": "ping"}\n\n',
    );
  });

  it('keeps thinking blocks and their signatures for the SDK', async () => {
    const encoder = new AnthropicMessageEvents('my-alias', 'req_1');
    const message = await finalMessage(encoder.encode(upstreamEvents) + encoder.end(end(USAGE)));
    expect(message.model).toBe('my-alias');
    expect((message.content as Array<{ type: string; signature?: string }>)[0]).toEqual(
      expect.objectContaining({ type: 'thinking', signature: expect.stringMatching(/^Eq/) }),
    );
  });
});

describe('AnthropicMessageEvents frames', () => {
  it('pings as Anthropic does, and fails in its error shape', () => {
    const encoder = new AnthropicMessageEvents('m', 'req_9');
    expect(encoder.heartbeat).toBe(PING_FRAME);
    expect(events(encoder.error(new GatewayException('upstream_overloaded')))).toEqual([
      {
        event: 'error',
        data: {
          type: 'error',
          error: {
            type: 'overloaded_error',
            message: 'The model provider is overloaded. Retry later.',
          },
          request_id: 'req_9',
        },
      },
    ]);
    expect(events(encoder.error(new Error('bug')))[0].data.error.type).toBe('api_error');
  });
});
