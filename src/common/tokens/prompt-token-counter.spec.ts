import fc from 'fast-check';
import {
  countWithOpenAiEncoding,
  exactOpenAiTokens,
  type OpenAiEncodingName,
} from './openai-encoding';
import { UTF8_BYTES_COUNTER, promptTokenCounterFor } from './prompt-token-counter';
import { TokenizerBudget } from './tokenizer-budget';

const ENCODINGS: OpenAiEncodingName[] = ['o200k_base', 'cl100k_base'];
const NO_DEADLINE = () => TokenizerBudget.unlimited();

const codePoints = (from: number, to: number) =>
  fc.integer({ min: from, max: to }).map((code) => String.fromCodePoint(code));
/** Runs of one script, so long words and unpunctuated CJK lines come up, not only noise. */
const run = (unit: fc.Arbitrary<string>, maxLength: number) =>
  fc.array(unit, { minLength: 1, maxLength }).map((units) => units.join(''));
const separator = fc.constantFrom(
  ' ',
  '  ',
  '\n',
  '\n\n',
  '. ',
  ', ',
  '。',
  '，',
  '\t',
  "'s ",
  '/',
);

/**
 * Random text of every kind a prompt carries: any code point, CJK, emoji with modifiers and
 * joiners, combining marks, code, JSON (tool arguments), long runs of one character, special-token
 * text, spread over a few hundred characters so that texts cross the tokenizer's chunks.
 */
const anyText = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      run(codePoints(0x4e00, 0x9fff), 150),
      run(codePoints(0x3040, 0x30ff), 80),
      run(codePoints(0x0600, 0x06ff), 80),
      run(codePoints(0x1f300, 0x1faff), 40),
      fc
        .tuple(codePoints(0x1f466, 0x1f469), fc.constantFrom('\u200d', '\u{1f3fd}', '\ufe0f'))
        .map(([a, b]) => a + b),
      run(fc.constantFrom('e\u0301', 'a', 'n\u0303', '\u0308'), 120),
      fc.json({ maxDepth: 3 }),
      fc.constantFrom('<|endoftext|>', '<|im_start|>', 'def f(x):\n    return x ** 2\n'),
      fc
        .tuple(fc.constantFrom('a', ' ', '!', '7', '字', '\n'), fc.integer({ min: 90, max: 400 }))
        .map(([unit, times]) => unit.repeat(times)),
      separator,
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(''));

/** Ordinary prose: words under the chunk size between spaces and punctuation. */
const prose = fc
  .array(
    fc.tuple(
      fc.oneof(
        run(codePoints(0x61, 0x7a), 14),
        run(codePoints(0x41, 0x5a), 6),
        run(codePoints(0x4e00, 0x9fff), 20),
        run(codePoints(0x30, 0x39), 6),
      ),
      separator,
    ),
    { maxLength: 120 },
  )
  .map((pairs) => pairs.map(([word, sep]) => word + sep).join(''));

describe('prompt token counters: the estimate is never below the tokenizer', () => {
  it.each(ENCODINGS)('%s: the chunked count >= the tokenizer count, for any text', (name) => {
    fc.assert(
      fc.property(anyText, (text) => {
        const exact = exactOpenAiTokens(name, text);
        expect(countWithOpenAiEncoding(name, text, NO_DEADLINE())).toBeGreaterThanOrEqual(exact);
        // Once the budget is spent everything is bytes: still a bound.
        expect(countWithOpenAiEncoding(name, text, TokenizerBudget.spent())).toBeGreaterThanOrEqual(
          exact,
        );
      }),
      { numRuns: 300 },
    );
  });

  it.each(ENCODINGS)('%s: the UTF-8 byte bound >= the tokenizer count, for any text', (name) => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(UTF8_BYTES_COUNTER.text(text, NO_DEADLINE())).toBeGreaterThanOrEqual(
          exactOpenAiTokens(name, text),
        );
      }),
      { numRuns: 300 },
    );
  });

  it.each(ENCODINGS)(
    '%s: ordinary prose is counted exactly, however it is cut into chunks',
    (name) => {
      fc.assert(
        fc.property(prose, (text) => {
          expect(countWithOpenAiEncoding(name, text, NO_DEADLINE())).toBe(
            exactOpenAiTokens(name, text),
          );
        }),
        { numRuns: 300 },
      );
    },
  );

  it('the CJK prompt of issue 53 is counted exactly, and chars / 4 undercounted it', () => {
    const text = '我们在测试一个网关的预算限制是否在非拉丁文字下也能成立。'
      .repeat(15)
      .slice(0, 400);
    const exact = exactOpenAiTokens('o200k_base', text);
    expect(countWithOpenAiEncoding('o200k_base', text, NO_DEADLINE())).toBe(exact);
    expect(exact).toBeGreaterThan(text.length / 4);
    expect(UTF8_BYTES_COUNTER.text(text, NO_DEADLINE())).toBe(1201);
  });
});

describe('promptTokenCounterFor', () => {
  it("uses OpenAI's tokenizers for OpenAI's model names only", () => {
    expect(promptTokenCounterFor({ provider: 'openai', model: 'gpt-4o-mini' }).name).toBe(
      'o200k_base',
    );
    expect(promptTokenCounterFor({ provider: 'openai', model: 'openai/gpt-5.1' }).name).toBe(
      'o200k_base',
    );
    expect(promptTokenCounterFor({ provider: 'openai', model: 'gpt-4-0613' }).name).toBe(
      'cl100k_base',
    );
    expect(promptTokenCounterFor({ provider: 'openai', model: 'llama-3.1-70b' }).name).toBe(
      'utf8-bytes',
    );
    expect(promptTokenCounterFor({ provider: 'anthropic', model: 'claude-sonnet-4-5' }).name).toBe(
      'utf8-bytes',
    );
    expect(promptTokenCounterFor({ provider: 'gemini', model: 'gpt-4o' }).name).toBe('utf8-bytes');
  });
});
