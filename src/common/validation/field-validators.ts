import { isISO8601, ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Validators for what the admin API and the dashboard pass on to Postgres, so a hostile value is
 * a 400 naming its field rather than a database error: text Postgres cannot store or compare
 * (NUL is SQLSTATE 22021), and instants it cannot hold or the gateway never saw (22008).
 */

// C0 controls, DEL and C1 controls, and (the `u` flag reads pairs as one code point) UTF-16
// surrogates left unpaired, which no UTF-8 text can hold.
// eslint-disable-next-line no-control-regex
const NOT_PLAIN = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/u;

/** Years the gateway takes in dates: none of its data is older, and four digits suffice. */
export const FIRST_YEAR = 1970;
export const LAST_YEAR = 9999;
const RANGE = `between ${FIRST_YEAR}-01-01 and ${LAST_YEAR}-12-31`;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isPlainText(value: unknown): value is string {
  return typeof value === 'string' && !NOT_PLAIN.test(value);
}

/** A string without control characters (tab and newline included) or unpaired surrogates. */
export function IsPlainText(options: ValidationOptions = {}): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPlainText',
      validator: {
        validate: isPlainText,
        defaultMessage: () =>
          `$property must be ${options.each ? 'strings' : 'a string'} without control characters (U+0000 to U+001F, U+007F to U+009F) or unpaired surrogates`,
      },
    },
    options,
  );
}

/** A calendar day written YYYY-MM-DD (UTC), in the years the gateway takes. */
export function isUtcDay(value: unknown): value is string {
  const match = typeof value === 'string' ? DAY.exec(value) : null;
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    year >= FIRST_YEAR &&
    year <= LAST_YEAR &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day
  );
}

/** `what` completes the message, e.g. " (spend is kept per day)". */
export function IsUtcDay(what = ''): PropertyDecorator {
  return ValidateBy({
    name: 'isUtcDay',
    validator: {
      validate: isUtcDay,
      defaultMessage: () => `$property must be a UTC day written YYYY-MM-DD ${RANGE}${what}`,
    },
  });
}

/** An ISO 8601 date or date-time that names a real instant in the years the gateway takes. */
export function isTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !isISO8601(value, { strict: true })) return false;
  const time = Date.parse(value);
  if (!Number.isFinite(time)) return false;
  const year = new Date(time).getUTCFullYear();
  return year >= FIRST_YEAR && year <= LAST_YEAR;
}

export function IsTimestamp(): PropertyDecorator {
  return ValidateBy({
    name: 'isTimestamp',
    validator: {
      validate: isTimestamp,
      defaultMessage: () =>
        `$property must be an ISO 8601 date or time (e.g. 2026-11-22T10:00:00Z) ${RANGE}`,
    },
  });
}
