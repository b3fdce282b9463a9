import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';

/** A token in gpt-tokenizer's rank tables: its text, or its bytes when they are not UTF-8 text. */
export type RankedToken = string | number[];

const NEWLINE = 0x0a;
const SPACE = 0x20;
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
  let length = json.write('[');
  const token = Buffer.alloc(MAX_TOKEN_BYTES);
  let count = 0;
  for (let start = 0; start < file.length;) {
    let end = file.indexOf(NEWLINE, start);
    if (end === -1) end = file.length;
    if (end > start) {
      const space = file.indexOf(SPACE, start);
      const rank =
        space === -1 || space + 1 >= end ? NaN : Number(file.toString('latin1', space + 1, end));
      // Ranks 0, 1, 2... in order, as in both files, so that the array's index is the rank.
      if (rank !== count || space - start > (MAX_TOKEN_BYTES / 3) * 4)
        throw new Error(`${name}: unexpected line at byte ${start}`);
      const bytes = token.subarray(0, token.write(file.toString('latin1', start, space), 'base64'));
      const piece = `${count++ > 0 ? ',' : ''}${isText(bytes) ? JSON.stringify(bytes.toString()) : `[${bytes.join(',')}]`}`;
      // Room for the piece and the closing bracket.
      if (length + Buffer.byteLength(piece) + 1 > json.length) json = grown(json, length);
      length += json.write(piece, length);
    }
    start = end + 1;
  }
  length += json.write(']', length);
  return JSON.parse(json.toString('utf8', 0, length)) as RankedToken[];
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
