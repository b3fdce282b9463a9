import type { GptEncoding } from 'gpt-tokenizer/cjs/GptEncoding';
import { readTiktokenRanks, type RankedToken } from './tiktoken-ranks';

/* eslint-disable @typescript-eslint/no-require-imports */
const { GptEncoding: Library } = require('gpt-tokenizer/cjs/GptEncoding') as {
  GptEncoding: typeof GptEncoding;
};
const libraryRanks = (name: string) =>
  (require(`gpt-tokenizer/cjs/bpeRanks/${name}`) as { default: RankedToken[] }).default;
const libraryEncoding = (name: string) =>
  (require(`gpt-tokenizer/cjs/encoding/${name}`) as { default: GptEncoding }).default;
/* eslint-enable @typescript-eslint/no-require-imports */

/** Indexes where the two tables differ (a hole, a type, a text or a byte), the first few. */
function differences(ours: RankedToken[], theirs: RankedToken[]): number[] {
  const found: number[] = [];
  for (let rank = 0; rank < Math.max(ours.length, theirs.length) && found.length < 5; rank++) {
    const a = ours[rank];
    const b = theirs[rank];
    const same =
      rank in ours === rank in theirs &&
      (typeof a === 'string' || typeof b === 'string'
        ? a === b
        : a.length === b.length && a.every((byte, i) => byte === b[i]));
    if (!same) found.push(rank);
  }
  return found;
}

const SAMPLES = [
  'Hello, world! How are you doing today?',
  '日本語のテキストと中文文本，还有한국어。',
  'emoji 👩🏽‍💻🔥🇫🇷 and é vs e\u0301, \ufeffBOM, \ufffd',
  '<|endoftext|> <|im_start|>user\n{"a": [1, 2.5e-3, null]}<|im_end|>',
  'def f(x):\n    return x ** 2  # 12345678901234567890\r\n\t\t',
  '\u0000\u0001\u007f\u0080\uffff',
];

describe.each(['o200k_base', 'cl100k_base'] as const)('readTiktokenRanks(%s)', (name) => {
  let ours: RankedToken[];
  beforeAll(() => {
    ours = readTiktokenRanks(name);
  });

  it("holds the library's own rank table entry by entry", () => {
    const theirs = libraryRanks(name);
    expect(ours.length).toBe(theirs.length);
    expect(Object.keys(ours).length).toBe(Object.keys(theirs).length);
    expect(differences(ours, theirs)).toEqual([]);
    // Both forms occur, so the comparison covers text and byte tokens alike.
    expect(ours.some((token) => typeof token !== 'string')).toBe(true);
  });

  it("counts as the library's own encoding does", () => {
    const built = Library.getEncodingApi(name, () => ours);
    const library = libraryEncoding(name);
    expect(built.vocabularySize).toBe(library.vocabularySize);
    const asText = { disallowedSpecial: new Set<string>() };
    for (const text of SAMPLES) {
      expect(built.encode(text, asText)).toEqual(library.encode(text, asText));
      expect(built.countTokens(text, { allowedSpecial: 'all' })).toBe(
        library.countTokens(text, { allowedSpecial: 'all' }),
      );
    }
  });
});
