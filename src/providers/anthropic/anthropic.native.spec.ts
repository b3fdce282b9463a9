import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UpstreamError } from '../../common/errors/upstream.error';
import {
  AnthropicNativeStreamMapper,
  countTokensOf,
  countTokensUrl,
  filterBetas,
  nativeAnswerUsage,
  nativeBody,
  nativeHeaders,
} from './anthropic.native';

const FIXTURES = join(__dirname, '../../../test/fixtures/anthropic');

function sseEvents(name: string): Array<{ event: string; data: string }> {
  return readFileSync(join(FIXTURES, name), 'utf8')
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      return { event: eventLine.slice('event: '.length), data: dataLine.slice('data: '.length) };
    });
}

describe('nativeBody', () => {
  it('is the client JSON with the deployment model in its place', () => {
    const body = {
      model: 'claude-alias',
      max_tokens: 5,
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }],
        },
      ],
      unknown_field: { kept: 1.5 },
    };
    expect(nativeBody(body, { upstreamModel: 'claude-sonnet-4-5-20250929' })).toBe(
      JSON.stringify(Object.assign({}, body, { model: 'claude-sonnet-4-5-20250929' })),
    );
    expect(body.model).toBe('claude-alias');
  });
});

describe('nativeHeaders', () => {
  const deployment = { apiKey: 'sk-ant', headers: {} };

  it("forwards the client's version and betas, the deployment's key", () => {
    expect(
      nativeHeaders(deployment, 'req_1', {
        'anthropic-version': '2026-10-21',
        'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
      }),
    ).toEqual({
      'anthropic-version': '2026-10-21',
      'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
      'x-api-key': 'sk-ant',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-request-id': 'req_1',
    });
  });

  it('uses its own version when the client sends none, and configured headers on top', () => {
    const headers = nativeHeaders(
      { apiKey: 'sk-ant', headers: { 'Anthropic-Beta': 'fixed-beta', 'X-Api-Key': 'leak' } },
      'req_1',
      { 'anthropic-beta': 'from-client' },
    );
    expect(headers['anthropic-version']).toBe('2023-06-01');
    expect(headers['anthropic-beta']).toBe('fixed-beta');
    expect(headers['x-api-key']).toBe('sk-ant');
  });

  it("filters the betas to the deployment's list", () => {
    expect(filterBetas('a, b,c', ['c', 'a'])).toBe('a,c');
    expect(filterBetas('a,b', [])).toBeUndefined();
    expect(filterBetas('a, b', undefined)).toBe('a, b');
    expect(
      nativeHeaders(Object.assign({ anthropicBeta: ['b'] }, deployment), 'r', {
        'anthropic-beta': 'a',
      }),
    ).not.toHaveProperty('anthropic-beta');
  });
});

describe('count_tokens', () => {
  it('posts next to /messages and reads input_tokens', () => {
    expect(countTokensUrl({ baseUrl: 'https://api.anthropic.com/v1' })).toBe(
      'https://api.anthropic.com/v1/messages/count_tokens',
    );
    expect(countTokensOf({ input_tokens: 2095 })).toBe(2095);
    expect(() => countTokensOf({ tokens: 3 })).toThrow(UpstreamError);
  });
});

describe('nativeAnswerUsage', () => {
  it('reads the usage of a message, cache tokens included in the prompt', () => {
    const message = JSON.parse(readFileSync(join(FIXTURES, 'message-text.json'), 'utf8'));
    expect(nativeAnswerUsage(message)).toEqual(
      expect.objectContaining({ completionTokens: message.usage.output_tokens }),
    );
    expect(() => nativeAnswerUsage({ type: 'error' })).toThrow(UpstreamError);
  });
});

describe('AnthropicNativeStreamMapper', () => {
  it('relays every event as it came and hands on the usage with message_delta', () => {
    const mapper = new AnthropicNativeStreamMapper();
    const events = sseEvents('stream-thinking-tool-use.sse');
    const parts = events.flatMap((event) => mapper.map(event));
    const relayed = parts.filter((part) => part.type === 'native');
    expect(relayed.map((part) => ({ event: part.event, data: part.data }))).toEqual(events);
    expect(parts.filter((part) => part.type === 'usage')).toEqual([
      {
        type: 'usage',
        usage: {
          promptTokens: 2560,
          completionTokens: 96,
          cachedTokens: 2048,
          cacheWriteTokens: 0,
        },
      },
    ]);
    const chars = relayed.reduce((sum, part) => sum + (part.outputChars ?? 0), 0);
    expect(chars).toBeGreaterThan(100);
    expect(mapper.complete).toBe(true);
  });

  it('throws an error event and notices a stream cut before message_stop', () => {
    const mapper = new AnthropicNativeStreamMapper();
    const [start] = sseEvents('stream-thinking-tool-use.sse');
    mapper.map(start);
    expect(mapper.complete).toBe(false);
    expect(() =>
      mapper.map({
        event: 'error',
        data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      }),
    ).toThrow(expect.objectContaining({ kind: 'upstream_overloaded' }));
  });
});
