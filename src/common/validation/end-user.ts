import { invalidParameter } from './invalid-parameter';

// The end user a request is made for (docs/spend.md, "Spend by end user"): each wire format
// reads its own body field (`user`, `metadata.user_id`) and the header wins over it. Every one of
// them is checked here, so that what the usage record stores is the same whatever the format.

/** Names the end user of a request, over the body's field. */
export const END_USER_HEADER = 'x-gateway-end-user';
export const MAX_END_USER_LENGTH = 256;

// Controls (NUL, the other C0 and C1 controls, DEL: an id is shown in CSV exports, the dashboard
// and terminal tables, where they would break lines or hide text) and lone surrogates (Postgres
// cannot store them, and one would fail the whole usage batch it is written with).
const REFUSED_CHARACTERS = /[\p{Cc}\p{Cs}]/u;

/**
 * `value` as an end-user id: a string of at most MAX_END_USER_LENGTH characters (code points),
 * without control characters or lone surrogates. Anything else is a 400 invalid_parameter naming
 * `field`, in the envelope of the route's format.
 */
export function endUserId(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalidParameter(field, 'must be a string');
  // length counts UTF-16 units, never fewer than code points: the exact count only when over.
  if (value.length > MAX_END_USER_LENGTH && [...value].length > MAX_END_USER_LENGTH)
    throw invalidParameter(field, `must be at most ${MAX_END_USER_LENGTH} characters`);
  if (REFUSED_CHARACTERS.test(value))
    throw invalidParameter(field, 'must not contain control characters or lone surrogates');
  return value;
}

/**
 * The header's end user, or undefined without one. Node reads header bytes as Latin-1; clients
 * that send UTF-8 (most do) get their characters back, and bytes that are not UTF-8 stay Latin-1.
 */
export function endUserFromHeader(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? raw.join(', ') : raw;
  return endUserId(asUtf8(text), END_USER_HEADER);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function asUtf8(latin1: string): string {
  // Plain ASCII, by far the usual id, is the same either way.
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\u007f]*$/.test(latin1)) return latin1;
  try {
    return UTF8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    return latin1;
  }
}
