import {
  contentParts,
  contentText,
  imageSource,
  parseArguments,
  refuseUnsupported,
  requestedMaxTokens,
  stopSequences,
  toolCallsOf,
} from './chat-input';

describe('chat input helpers', () => {
  it('reads a string or an array of parts as parts, skipping unknown or empty ones', () => {
    expect(contentParts('hi')).toEqual([{ type: 'text', text: 'hi' }]);
    expect(contentParts('')).toEqual([]);
    expect(contentParts(null)).toEqual([]);
    const parts = [
      { type: 'text', text: 'a' },
      { type: 'input_audio' },
      { type: 'text', text: 'b' },
    ] as unknown as string;
    expect(contentText(parts)).toBe('ab');
  });

  it('splits data URLs (with extra parameters) and keeps http URLs', () => {
    expect(imageSource('data:image/webp;name=x.webp;base64,UklGRg==')).toEqual({
      kind: 'base64',
      mediaType: 'image/webp',
      data: 'UklGRg==',
    });
    expect(imageSource('HTTPS://example.com/a.png')).toEqual({
      kind: 'url',
      url: 'HTTPS://example.com/a.png',
    });
  });

  it('refuses an image it cannot send rather than dropping it', () => {
    expect(() => imageSource('file:///etc/passwd')).toThrow(
      expect.objectContaining({ kind: 'bad_request' }),
    );
    expect(() => imageSource('data:image/png,not-base64')).toThrow(
      expect.objectContaining({ kind: 'bad_request' }),
    );
  });

  it('parses tool-call arguments into an object, keeping broken JSON as text', () => {
    expect(parseArguments('{"a":1}')).toEqual({ a: 1 });
    expect(parseArguments('')).toEqual({});
    expect(parseArguments('[1]')).toEqual({ value: [1] });
    expect(parseArguments('{"a":')).toEqual({ _raw: '{"a":' });
  });

  it('keeps only well-formed tool calls', () => {
    const calls = [
      { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
      { id: 'c2' },
      null,
    ];
    expect(toolCallsOf({ tool_calls: calls })).toEqual([calls[0]]);
  });

  it('reads max tokens under either name and stop as string or list', () => {
    expect(requestedMaxTokens({ max_tokens: 10 })).toBe(10);
    expect(requestedMaxTokens({ max_completion_tokens: 20, max_tokens: 10 })).toBe(20);
    expect(requestedMaxTokens({ max_tokens: 0 })).toBeUndefined();
    expect(stopSequences('x')).toEqual(['x']);
    expect(stopSequences([])).toBeUndefined();
  });

  it('refuses n > 1, logprobs and top_logprobs for a provider that cannot honour them, naming the field', () => {
    expect(() =>
      refuseUnsupported({ n: 1, logprobs: false, temperature: 1 }, 'anthropic'),
    ).not.toThrow();
    for (const [parameters, param] of [
      [{ n: 2 }, 'n'],
      [{ logprobs: true }, 'logprobs'],
      [{ top_logprobs: 0 }, 'top_logprobs'],
    ] as const) {
      expect(() => refuseUnsupported(parameters, 'gemini')).toThrow(
        expect.objectContaining({
          status: 400,
          code: 'invalid_parameter',
          param,
          message: expect.stringContaining('gemini'),
        }),
      );
    }
  });
});
