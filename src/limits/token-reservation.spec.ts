import { toPrice } from '../common/money/price';
import { estimatePromptTokens, reservationCost, reservationTokens } from './token-reservation';

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

describe('reservationCost', () => {
  const messages = [{ content: 'x'.repeat(40) }];
  const cheap = toPrice({ input: '1', output: '2' });
  const dear = toPrice({ input: '0.5', cache_write: '3', output: '1', reasoning: '4' });

  it('prices the prompt estimate and the completion cap, in pico-dollars', () => {
    // 10 * 1,000,000 + 50 * 2,000,000
    expect(reservationCost({ messages, max_tokens: 50 }, 1024, [{ price: cheap }])).toEqual({
      min: 110_000_000n,
      max: 110_000_000n,
    });
  });

  it('takes the dearest input and output rates of all candidates, cache writes and reasoning included', () => {
    // input rate max(1, 0.5, 3) = 3, output rate max(2, 1, 4) = 4 (per token, in micro-dollars)
    expect(
      reservationCost({ messages, max_tokens: 50, n: 2 }, 1024, [
        { price: cheap },
        { price: dear },
        { price: null },
      ]),
    ).toEqual({
      min: 10n * 3_000_000n + 100n * 4_000_000n,
      max: 10n * 3_000_000n + 100n * 4_000_000n,
    });
  });

  it('holds the whole default without a cap, and nothing is known without a price', () => {
    expect(reservationCost({ messages }, 100, [{ price: cheap }])?.min).toBe(
      10n * 1_000_000n + 100n * 2_000_000n,
    );
    expect(reservationCost({ messages }, 100, [{ price: null }, {}])).toBeNull();
  });

  it("a deployment that sends its own cap (Anthropic's default_max_tokens) is held at that cap", () => {
    expect(
      reservationCost({ messages }, 100, [{ price: cheap }, { price: cheap, maxTokens: 4096 }])
        ?.min,
    ).toBe(10n * 1_000_000n + 4096n * 2_000_000n);
    // The client's max_tokens is what the deployment is sent, whatever its default.
    expect(
      reservationCost({ messages, max_tokens: 5 }, 100, [{ price: cheap, maxTokens: 4096 }])?.min,
    ).toBe(10n * 1_000_000n + 5n * 2_000_000n);
  });
});
