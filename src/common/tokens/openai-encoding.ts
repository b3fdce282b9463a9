import type { GptEncoding } from 'gpt-tokenizer/cjs/GptEncoding';
import { readTiktokenRanks } from './tiktoken-ranks';
import type { TokenizerBudget } from './tokenizer-budget';

export type OpenAiEncodingName = 'o200k_base' | 'cl100k_base';

interface Encoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  setMergeCacheSize(size: number): void;
}

/** Texts of at most this many UTF-16 units go to the tokenizer in one call. */
const CHUNK = 96;
/**
 * Pieces the tokenizer has merged already, per encoding. Bounded because a piece may be up to
 * CHUNK characters and the library's default (100,000) could then hold tens of MiB.
 */
const MERGE_CACHE_SIZE = 20_000;
// Special-token text in a prompt is plain text to OpenAI's chat API, as it is counted here.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

const loaded = new Map<OpenAiEncodingName, Encoding>();

/**
 * Loaded on first use: o200k_base costs about 43 MiB of RSS and 0.3 s when it loads (cl100k_base
 * 23 MiB), which only gateways that hold tokens for OpenAI models should pay. It is the library's
 * own encoding, over ranks read from its .tiktoken file rather than from its rank module, whose
 * parse costs some 15-18 MiB more (tiktoken-ranks.ts).
 */
function encoding(name: OpenAiEncodingName): Encoding {
  let encoder = loaded.get(name);
  if (!encoder) {
    // The library before the ranks: the other way round measured a few MiB more at the peak.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const library = require('gpt-tokenizer/cjs/GptEncoding') as { GptEncoding: typeof GptEncoding };
    const ranks = readTiktokenRanks(name);
    encoder = library.GptEncoding.getEncodingApi(name, () => ranks);
    encoder.setMergeCacheSize(MERGE_CACHE_SIZE);
    // The library builds its tables on the first count: do it here, not inside a request's budget.
    encoder.countTokens('warm', AS_TEXT);
    loaded.set(name, encoder);
  }
  return encoder;
}

const LETTER = /\p{L}/u;
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;

function isLetter(unit: number, text: string, index: number): boolean {
  if (unit < 0x80) return (unit >= 65 && unit <= 90) || (unit >= 97 && unit <= 122);
  // A surrogate half is not a whole character: never cut next to one.
  return (unit < 0xd800 || unit > 0xdfff) && LETTER.test(text[index]);
}

/**
 * True when both encodings' pre-tokenizers start a new piece at `index` whatever follows it:
 * a letter ends there and what comes next can continue neither a word nor a contraction (`'s`).
 * Their split patterns have no look-behind, and the piece before ends with letters, which no
 * look-ahead or end-of-text rule of theirs depends on; so the text on either side splits into the
 * same pieces alone as in the whole, and the counts of the two sides add up to the whole's.
 */
function isCut(text: string, index: number): boolean {
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  if (!isLetter(before, text, index - 1)) return false;
  if (after < 0x80)
    return !((after >= 65 && after <= 90) || (after >= 97 && after <= 122) || after === 39);
  return (after < 0xd800 || after > 0xdfff) && !LETTER_OR_MARK.test(text[index]);
}

function bytes(text: string, start: number, end: number): number {
  return Buffer.byteLength(start === 0 && end === text.length ? text : text.slice(start, end));
}

/**
 * An upper bound of `text`'s tokens in an OpenAI encoding, exact for ordinary text. The text is
 * cut where pieces are sure to split (isCut) into runs of at most CHUNK characters, each counted
 * by the tokenizer. From a run with no such cut, and once `budget` is spent, the rest of the text is
 * counted as its UTF-8 bytes instead, which a byte-level BPE never exceeds: the tokenizer's merge
 * step is quadratic in a piece's length, and random text costs it microseconds per byte, so
 * neither may stall a request.
 */
export function countWithOpenAiEncoding(
  name: OpenAiEncodingName,
  text: string,
  budget: TokenizerBudget,
): number {
  const encoder = encoding(name);
  let total = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.length;
    if (end - start > CHUNK) {
      end = start + CHUNK;
      while (end > start && !isCut(text, end)) end--;
      // No cut within CHUNK (a word of hundreds of letters, CJK without punctuation, emoji):
      // the rest is counted as bytes rather than searched for the next cut character by character.
      if (end === start) return total + bytes(text, start, text.length);
    }
    if (!budget.allows(end - start)) return total + bytes(text, start, text.length);
    total += encoder.countTokens(
      start === 0 && end === text.length ? text : text.slice(start, end),
      AS_TEXT,
    );
    start = end;
  }
  return total;
}

/** Loads the encoding now, so that its first load (0.3 s) is not taken from a text's time. */
export function loadOpenAiEncoding(name: OpenAiEncodingName): void {
  encoding(name);
}

/** The tokenizer's own count, for tests that compare the bound with it. */
export function exactOpenAiTokens(name: OpenAiEncodingName, text: string): number {
  return encoding(name).countTokens(text, AS_TEXT);
}
