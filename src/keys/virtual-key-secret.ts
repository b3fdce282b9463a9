import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'gk-';
/** What a bearer token must look like before the gateway spends a lookup on it. */
export const SECRET_FORMAT = /^[A-Za-z0-9_\-.]{20,256}$/;
const DISPLAY_PREFIX_LENGTH = 10;

/** A new secret: 32 random bytes, base64url, with a recognisable prefix (as `sk-` is for OpenAI). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * SHA-256 of the secret, as hex: what is stored and looked up. Every request hashes its bearer
 * secret; the one-shot `crypto.hash` skips the Hash object `createHash` builds.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Constant-time equality of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
