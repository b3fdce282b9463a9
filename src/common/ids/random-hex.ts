import { randomBytes } from 'node:crypto';

const ID_BYTES = 12;
const POOL_BYTES = ID_BYTES * 512;
let pool = Buffer.alloc(0);
let offset = 0;

/**
 * 12 random bytes as 24 hex characters, for request and completion ids. Cut from a pool of
 * crypto-random bytes refilled every 512 ids: a randomBytes call per id was one getrandom system
 * call per id, two per request (docs/performance.md).
 */
export function randomHex12(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return hex;
}
