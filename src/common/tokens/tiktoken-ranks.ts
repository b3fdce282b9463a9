import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';

/** A token in gpt-tokenizer's rank tables: its text, or its bytes when they are not UTF-8 text. */
export type RankedToken = string | number[];

const HEX = '0123456789abcdef';
const [SPACE, NEWLINE, COMMA, QUOTE, BACKSLASH, OPEN, CLOSE] = [...' \n,"\\[]'].map((c) =>
  c.charCodeAt(0),
);
/** Room for one token's bytes: the longest is 128 in both encodings. */
const MAX_TOKEN_BYTES = 256;

/**
 * The ranks of `name` from the `.tiktoken` file gpt-tokenizer ships (a line per token: its bytes in
 * base64, a space, its rank), in the form its `GptEncoding` takes: the token at its rank's index.
 *
 * The package's own rank modules hold the same table as a 2.4 MB array literal, which V8 needs tens
 * of MiB to parse and compile. Here the file is rewritten as one JSON array and given to JSON.parse:
 * V8 parses JSON without compiling it, and makes its short strings (up to 10 characters: most
 * tokens) directly in the old generation, so that 200,000 live strings do not also grow the young
 * one to its maximum.
 */
export function readTiktokenRanks(name: 'o200k_base' | 'cl100k_base'): RankedToken[] {
  const file = readFileSync(require.resolve(`gpt-tokenizer/data/${name}.tiktoken`));
  // A token's JSON is about as long as its line (bytes, quotes and comma against base64 and rank).
  let json: Buffer = Buffer.allocUnsafe(file.length);
  const token = Buffer.alloc(MAX_TOKEN_BYTES);
  let length = 0;
  json[length++] = OPEN;
  let count = 0;
  for (let start = 0; start < file.length;) {
    let end = file.indexOf(NEWLINE, start);
    if (end === -1) end = file.length;
    if (end > start) {
      const space = file.indexOf(SPACE, start);
      const rank = space === -1 || space > end ? -1 : decimal(file, space + 1, end);
      // Ranks 0, 1, 2... in order, as in both files, so that the array's index is the rank.
      if (rank !== count || space - start > (MAX_TOKEN_BYTES / 3) * 4)
        throw new Error(`${name}: unexpected line at byte ${start}`);
      const bytes = token.subarray(0, token.write(file.toString('latin1', start, space), 'base64'));
      // At most 6 bytes per byte (\u00XX), 2 quotes or brackets, a comma and the closing bracket.
      if (length + 6 * bytes.length + 4 > json.length) json = grown(json, length);
      if (count++ > 0) json[length++] = COMMA;
      length = isText(bytes) ? writeString(json, length, bytes) : writeBytes(json, length, bytes);
    }
    start = end + 1;
  }
  json[length++] = CLOSE;
  return JSON.parse(json.toString('utf8', 0, length)) as RankedToken[];
}

/** The decimal number in file[from, to), or -1. */
function decimal(file: Buffer, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = file[i] - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return to > from ? value : -1;
}

function grown(json: Buffer, length: number): Buffer {
  const bigger = Buffer.allocUnsafe(2 * json.length);
  json.copy(bigger, 0, 0, length);
  return bigger;
}

/**
 * Text when the bytes are UTF-8, except after a BOM: a decoder drops a leading BOM, so that such a
 * token would not decode to its own bytes, and gpt-tokenizer's tables keep it as bytes.
 */
function isText(bytes: Buffer): boolean {
  return isUtf8(bytes) && !(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf);
}

/** Writes UTF-8 `bytes` as a JSON string at `at`; returns the end. */
function writeString(json: Buffer, at: number, bytes: Buffer): number {
  json[at++] = QUOTE;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte < 0x20 || byte === QUOTE || byte === BACKSLASH) {
      at += json.write(`\\u00${HEX[byte >> 4]}${HEX[byte & 15]}`, at, 'latin1');
    } else {
      json[at++] = byte;
    }
  }
  json[at++] = QUOTE;
  return at;
}

/** Writes `bytes` as a JSON array of numbers at `at`; returns the end. */
function writeBytes(json: Buffer, at: number, bytes: Buffer): number {
  return at + json.write(`[${bytes.join(',')}]`, at, 'latin1');
}
