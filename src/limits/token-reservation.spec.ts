import { estimatePromptTokens, reservationTokens } from './token-reservation';

describe('reservationTokens', () => {
  const messages = [{ content: 'x'.repeat(39) }, { content: null }];

  it('estimates the prompt at four characters a token over all message texts', () => {
    // 39 characters + 1 newline + 0 = 40 characters.
    expect(estimatePromptTokens(messages)).toBe(10);
  });

  it('adds max_completion_tokens, else max_tokens, else the configured default', () => {
    expect(reservationTokens({ messages, max_completion_tokens: 7, max_tokens: 50 }, 1024)).toEqual(
      { min: 17, max: 17 },
    );
    expect(reservationTokens({ messages, max_tokens: 50 }, 1024)).toEqual({ min: 60, max: 60 });
    expect(reservationTokens({ messages }, 1024)).toEqual({ min: 11, max: 1034 });
  });

  it('reserves the completion cap once per choice when n > 1', () => {
    expect(reservationTokens({ messages, max_tokens: 50, n: 3 }, 1024)).toEqual({
      min: 160,
      max: 160,
    });
    expect(reservationTokens({ messages, n: 2 }, 1024)).toEqual({ min: 12, max: 2058 });
  });
});

describe('estimatePromptTokens with content parts', () => {
  it('counts only the text parts of array content', () => {
    const { estimatePromptTokens } = jest.requireActual(
      './token-reservation',
    ) as typeof import('./token-reservation');
    const image = { type: 'image_url' as const, image_url: { url: 'x'.repeat(4000) } };
    // "abcd\nefgh" (9 characters) and "ijkl" joined by a newline: 14 characters, 4 tokens.
    expect(
      estimatePromptTokens([
        { content: [{ type: 'text', text: 'abcd' }, image, { type: 'text', text: 'efgh' }] },
        { content: 'ijkl' },
      ]),
    ).toBe(4);
  });
});
