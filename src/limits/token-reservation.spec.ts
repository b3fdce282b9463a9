import { toPrice } from '../common/money/price';
import {
  IMAGE_TOKENS_CEILING,
  UTF8_BYTES_COUNTER,
  promptTokenCounterFor,
} from '../common/tokens/prompt-token-counter';
import {
  estimatePromptTokens,
  estimateRequestPromptTokens,
  reservationCost,
  reservationTokens,
} from './token-reservation';

// The byte bound: 8 per request, 8 per message, each text's UTF-8 bytes + 1.
const bytes = (...texts: string[]) =>
  8 + texts.reduce((sum, text) => sum + (text ? Buffer.byteLength(text) + 1 : 0), 0);

describe('estimatePromptTokens', () => {
  it('bounds every text by its UTF-8 bytes, whatever the script: CJK and emoji count 3-4 bytes a character', () => {
    expect(estimatePromptTokens([{ role: 'user', content: 'x'.repeat(40) }])).toBe(
      bytes('user', 'x'.repeat(40)) + 8,
    );
    const cjk = '预算'.repeat(200);
    expect(estimatePromptTokens([{ role: 'user', content: cjk }])).toBe(8 + 8 + 5 + 1200 + 1);
    expect(estimatePromptTokens([{ content: '😀' }])).toBe(8 + 8 + 5);
  });

  it('counts every part that reaches the prompt: text, refusals, names, tool calls, images', () => {
    const toolCalls = [
      { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"q":"天气"}' } },
    ];
    const messages = [
      {
        role: 'user',
        name: 'ann',
        content: [
          { type: 'text' as const, text: 'abcd' },
          { type: 'image_url' as const, image_url: { url: 'https://example.test/a.png' } },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'refusal' as const, refusal: 'no' }],
        tool_calls: toolCalls,
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"temp": 21}' },
    ];
    expect(estimatePromptTokens(messages)).toBe(
      8 +
        (8 + 5 + 5 + IMAGE_TOKENS_CEILING + 2 + 4) +
        (8 + 10 + 3 + 8 + Buffer.byteLength(JSON.stringify(toolCalls)) + 1) +
        (8 + 5 + 3 + 13),
    );
  });

  it('holds images at the model family’s documented ceiling, low detail at its base cost', () => {
    const image = (detail?: string) => [
      { role: 'user', content: [{ type: 'image_url' as const, image_url: { url: 'x', detail } }] },
    ];
    const gpt4o = promptTokenCounterFor({ provider: 'openai', model: 'gpt-4o-2024-08-06' });
    const mini = promptTokenCounterFor({ provider: 'openai', model: 'gpt-4o-mini' });
    const base = estimatePromptTokens([{ role: 'user', content: [] }], gpt4o);
    expect(estimatePromptTokens(image(), gpt4o) - base).toBe(85 + 8 * 170);
    expect(estimatePromptTokens(image('low'), gpt4o) - base).toBe(85);
    expect(estimatePromptTokens(image(), mini) - base).toBe(2_833 + 8 * 5_667);
  });

  it('adds tool definitions and a response schema for the dearest model family', () => {
    const request = {
      messages: [{ role: 'user', content: 'hello' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      response_format: { type: 'json_schema', json_schema: { name: 's', schema: {} } },
    };
    const gpt = promptTokenCounterFor({ provider: 'openai', model: 'gpt-4.1' });
    const alone = estimateRequestPromptTokens(request, [gpt]);
    expect(estimateRequestPromptTokens(request, [gpt, UTF8_BYTES_COUNTER])).toBe(
      estimateRequestPromptTokens(request, [UTF8_BYTES_COUNTER]),
    );
    expect(estimateRequestPromptTokens(request, [UTF8_BYTES_COUNTER])).toBeGreaterThan(alone);
    expect(alone).toBeGreaterThan(estimatePromptTokens(request.messages, gpt) + 32);
  });
});

describe('reservationTokens', () => {
  const messages = [
    { role: 'user', content: 'x'.repeat(39) },
    { role: 'assistant', content: null },
  ];
  const prompt = estimateRequestPromptTokens({ messages });

  it('adds max_completion_tokens, else max_tokens, else the configured default', () => {
    expect(reservationTokens({ messages, max_completion_tokens: 7, max_tokens: 50 }, 1024)).toEqual(
      { min: prompt + 7, max: prompt + 7 },
    );
    expect(reservationTokens({ messages, max_tokens: 50 }, 1024)).toEqual({
      min: prompt + 50,
      max: prompt + 50,
    });
    expect(reservationTokens({ messages }, 1024)).toEqual({ min: prompt + 1, max: prompt + 1024 });
  });

  it('reserves the completion cap once per choice when n > 1', () => {
    expect(reservationTokens({ messages, max_tokens: 50, n: 3 }, 1024)).toEqual({
      min: prompt + 150,
      max: prompt + 150,
    });
    expect(reservationTokens({ messages, n: 2 }, 1024)).toEqual({
      min: prompt + 2,
      max: prompt + 2048,
    });
  });
});

describe('reservationCost', () => {
  const messages = [{ role: 'user', content: 'x'.repeat(40) }];
  const prompt = BigInt(estimateRequestPromptTokens({ messages }));
  const cheap = toPrice({ input: '1', output: '2' });
  const dear = toPrice({ input: '0.5', cache_write: '3', output: '1', reasoning: '4' });

  it('prices the prompt estimate and the completion cap, in pico-dollars', () => {
    expect(reservationCost({ messages, max_tokens: 50 }, 1024, [{ price: cheap }])).toEqual({
      min: prompt * 1_000_000n + 50n * 2_000_000n,
      max: prompt * 1_000_000n + 50n * 2_000_000n,
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
      min: prompt * 3_000_000n + 100n * 4_000_000n,
      max: prompt * 3_000_000n + 100n * 4_000_000n,
    });
  });

  it('holds the whole default without a cap, and nothing is known without a price', () => {
    expect(reservationCost({ messages }, 100, [{ price: cheap }])?.min).toBe(
      prompt * 1_000_000n + 100n * 2_000_000n,
    );
    expect(reservationCost({ messages }, 100, [{ price: null }, {}])).toBeNull();
  });

  it("a deployment that sends its own cap (Anthropic's default_max_tokens) is held at that cap", () => {
    expect(
      reservationCost({ messages }, 100, [{ price: cheap }, { price: cheap, maxTokens: 4096 }])
        ?.min,
    ).toBe(prompt * 1_000_000n + 4096n * 2_000_000n);
    // The client's max_tokens is what the deployment is sent, whatever its default.
    expect(
      reservationCost({ messages, max_tokens: 5 }, 100, [{ price: cheap, maxTokens: 4096 }])?.min,
    ).toBe(prompt * 1_000_000n + 5n * 2_000_000n);
  });
});
