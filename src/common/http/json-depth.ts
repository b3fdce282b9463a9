import { BODY_SHAPE_LIMITS, ShapeViolation } from '../validation/body-shape';

const OBJECT = 0;
const ARRAY = 1;

/**
 * Finds where raw JSON nests deeper than `maxDepth`, before it is parsed: JSON.parse spends about
 * 100 ms of CPU on a 1 MiB body nested half a million levels deep, so the depth has to be known
 * first. One pass over the bytes (UTF-8, whose structural characters are single bytes that never
 * occur inside a multi-byte character), keeping the key or index of each open level to name the
 * place. Malformed JSON is left to the parser.
 */
export function findTooDeep(
  json: Buffer,
  maxDepth: number = BODY_SHAPE_LIMITS.maxDepth,
): ShapeViolation | undefined {
  const { kinds, indexes, keyStarts, keyEnds } = levelsFor(maxDepth);
  let depth = 0;
  let inString = false;
  let escaped = false;
  let expectKey = false;
  let keyOpen = false;
  for (let i = 0; i < json.length; i++) {
    const byte = json[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === 0x5c) escaped = true;
      else if (byte === 0x22) {
        inString = false;
        if (keyOpen) {
          keyEnds[depth] = i;
          keyOpen = false;
        }
      }
      continue;
    }
    switch (byte) {
      case 0x22: // "
        inString = true;
        if (expectKey) {
          keyStarts[depth] = i + 1;
          keyOpen = true;
          expectKey = false;
        }
        break;
      case 0x7b: // {
      case 0x5b: // [
        if (depth === maxDepth)
          return {
            path: pathAt(json, depth, kinds, indexes, keyStarts, keyEnds),
            problem: `is nested more than ${maxDepth} levels deep`,
          };
        depth++;
        kinds[depth] = byte === 0x7b ? OBJECT : ARRAY;
        indexes[depth] = 0;
        keyStarts[depth] = keyEnds[depth] = 0;
        expectKey = byte === 0x7b;
        break;
      case 0x7d: // }
      case 0x5d: // ]
        if (depth > 0) depth--;
        expectKey = false;
        break;
      case 0x2c: // ,
        if (kinds[depth] === ARRAY) indexes[depth]++;
        else expectKey = depth > 0;
        break;
    }
  }
  return undefined;
}

interface Levels {
  kinds: Uint8Array;
  indexes: Uint32Array;
  keyStarts: Uint32Array;
  keyEnds: Uint32Array;
}

let levels: Levels | undefined;

/**
 * One set of per-level arrays for every call (the scan is synchronous, so calls never overlap):
 * four typed arrays allocated per request body would cost more than scanning a small body.
 * Each level is reset when it opens, so nothing leaks between calls.
 */
function levelsFor(maxDepth: number): Levels {
  if (!levels || levels.kinds.length <= maxDepth) {
    const size = maxDepth + 1;
    levels = {
      kinds: new Uint8Array(size),
      indexes: new Uint32Array(size),
      keyStarts: new Uint32Array(size),
      keyEnds: new Uint32Array(size),
    };
  }
  return levels;
}

/** The path of the value being read at `depth`, e.g. `messages[0].content`. */
function pathAt(
  json: Buffer,
  depth: number,
  kinds: Uint8Array,
  indexes: Uint32Array,
  keyStarts: Uint32Array,
  keyEnds: Uint32Array,
): string {
  let path = '';
  for (let level = 1; level <= depth; level++) {
    if (kinds[level] === ARRAY) {
      path += `[${indexes[level]}]`;
      continue;
    }
    const raw = json.toString('utf8', keyStarts[level], keyEnds[level]);
    let key: string;
    try {
      key = JSON.parse(`"${raw}"`) as string;
    } catch {
      key = raw;
    }
    path += path === '' ? key : `.${key}`;
  }
  return path;
}
