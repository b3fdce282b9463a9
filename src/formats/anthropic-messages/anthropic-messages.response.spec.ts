import {
  parseToolInput,
  toAnthropicMessage,
  toMessageUsage,
  withClientModel,
} from './anthropic-messages.response';

describe('toAnthropicMessage', () => {
  it('gives text and tool_use blocks, the stop reason and the usage', () => {
    const message = toAnthropicMessage(
      {
        content: 'Checking.',
        toolCalls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
        finishReason: 'tool_calls',
        usage: { promptTokens: 120, completionTokens: 9, cachedTokens: 100 },
      },
      'claude-sonnet-4-5',
    );
    expect(message).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 20,
        output_tokens: 9,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 100,
      },
    });
  });

  it.each([
    ['stop', undefined, 'end_turn'],
    ['length', undefined, 'max_tokens'],
    ['content_filter', undefined, 'refusal'],
    ['function_call', undefined, 'tool_use'],
    ['stop', '###', 'stop_sequence'],
  ] as const)('maps finish %s (stop sequence %s) to %s', (finishReason, stopSequence, expected) => {
    const message = toAnthropicMessage(
      { content: 'a', finishReason, stopSequence, usage: { promptTokens: 1, completionTokens: 1 } },
      'm',
    );
    expect(message.stop_reason).toBe(expected);
    expect(message.stop_sequence).toBe(stopSequence ?? null);
  });

  it('says tool_use when a provider ends a turn that called tools with a plain stop', () => {
    const message = toAnthropicMessage(
      {
        content: null,
        toolCalls: [{ id: 'c', type: 'function', function: { name: 'noop', arguments: '' } }],
        finishReason: 'stop',
        usage: { promptTokens: 1, completionTokens: 1 },
      },
      'm',
    );
    expect(message.content).toEqual([{ type: 'tool_use', id: 'c', name: 'noop', input: {} }]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('gives an empty answer no content block', () => {
    const message = toAnthropicMessage(
      { content: '', finishReason: 'length', usage: { promptTokens: 3, completionTokens: 0 } },
      'm',
    );
    expect(message.content).toEqual([]);
    expect(message.stop_reason).toBe('max_tokens');
  });
});

describe('toMessageUsage', () => {
  it('leaves the cache reads and writes out of input_tokens, as Anthropic counts', () => {
    expect(
      toMessageUsage({
        promptTokens: 3281,
        completionTokens: 9,
        cachedTokens: 3072,
        cacheWriteTokens: 188,
      }),
    ).toEqual({
      input_tokens: 21,
      output_tokens: 9,
      cache_creation_input_tokens: 188,
      cache_read_input_tokens: 3072,
    });
  });
});

describe('parseToolInput', () => {
  it('parses JSON, takes empty arguments as {}, and keeps text that is not JSON', () => {
    expect(parseToolInput('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(parseToolInput('  ')).toEqual({});
    expect(parseToolInput('{"a":')).toEqual({ _raw: '{"a":' });
  });
});

describe('withClientModel', () => {
  it('replaces only the model, in its place', () => {
    const body = {
      id: 'msg_1',
      type: 'message',
      model: 'claude-sonnet-4-5-20250929',
      extra: { x: 1 },
    };
    const answered = withClientModel(body, 'my-alias');
    expect(JSON.stringify(answered)).toBe(
      '{"id":"msg_1","type":"message","model":"my-alias","extra":{"x":1}}',
    );
    expect(body.model).toBe('claude-sonnet-4-5-20250929');
  });
});
