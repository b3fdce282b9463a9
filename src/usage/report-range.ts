import { GatewayException } from '../common/errors/gateway.exception';

export const DAY_MS = 86_400_000;
/** A report without `from` covers this many days before `to` (docs/usage.md, "Reports at scale"). */
export const DEFAULT_REPORT_DAYS = 30;
/** Rows per page of a report, unless `limit` says otherwise, and the most it may say. */
export const DEFAULT_REPORT_LIMIT = 100;
export const MAX_REPORT_LIMIT = 10_000;

const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * DAY_MS;

/**
 * A report's range cut where the rollups can answer: whole weeks (Thursday to Thursday, as the
 * dashboard's 7-day buckets, YYYY-MM-DD, first included) from usage_weekly, the other whole UTC
 * days from usage_daily, the other whole hours from usage_hourly, and only the partial hours at
 * the ends (`raw`, [from, to) instants) from usage_records. A report grouped by day reads no
 * weeks; one in buckets of hours reads no days; one in buckets under an hour reads raw rows.
 */
export interface SplitRange {
  weeks: { from: string; to: string } | null;
  days: Array<{ from: string; to: string }>;
  hours: Array<{ from: Date; to: Date }>;
  raw: Array<{ from: Date; to: Date }>;
}

export type RollupDepth = 'weeks' | 'days' | 'hours' | 'raw';

/** [from, to) in milliseconds cut into the whole `unit`s inside it and the parts at either end. */
function cut(from: number, to: number, unit: number) {
  const first = Math.ceil(from / unit) * unit;
  const last = Math.floor(to / unit) * unit;
  if (first >= last) return null;
  const ends: Array<[number, number]> = [];
  if (from < first) ends.push([from, first]);
  if (last < to) ends.push([last, to]);
  return { first, last, ends };
}

export function splitRange(from: Date, to: Date, depth: RollupDepth = 'weeks'): SplitRange {
  const split: SplitRange = { weeks: null, days: [], hours: [], raw: [] };
  const instants = ([a, b]: [number, number]) => ({ from: new Date(a), to: new Date(b) });
  const days = ([a, b]: [number, number]) => ({ from: dayOf(a), to: dayOf(b) });
  const hours = depth === 'raw' ? null : cut(from.getTime(), to.getTime(), HOUR_MS);
  if (!hours) {
    if (from < to) split.raw.push({ from, to });
    return split;
  }
  split.raw = hours.ends.map(instants);
  const wholeDays = depth === 'hours' ? null : cut(hours.first, hours.last, DAY_MS);
  if (!wholeDays) {
    split.hours.push(instants([hours.first, hours.last]));
    return split;
  }
  split.hours = wholeDays.ends.map(instants);
  const weeks = depth === 'days' ? null : cut(wholeDays.first, wholeDays.last, WEEK_MS);
  if (!weeks) {
    split.days.push(days([wholeDays.first, wholeDays.last]));
    return split;
  }
  split.days = weeks.ends.map(days);
  split.weeks = days([weeks.first, weeks.last]);
  return split;
}

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `to` (default now) and `from` (default DEFAULT_REPORT_DAYS before `to`). */
export function reportRange(
  from: Date | undefined,
  to: Date | undefined,
): { from: Date; to: Date } {
  const end = to ?? new Date();
  return { from: from ?? new Date(end.getTime() - DEFAULT_REPORT_DAYS * DAY_MS), to: end };
}

/** Code-unit order: the same on every machine, unlike a locale's, so cursors stay valid. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One page of a report's rows, and where the next one starts. */
export interface ReportPage<T> {
  data: T[];
  hasMore: boolean;
  /** Pass as `after` for the next page; null on the last one. */
  nextAfter: string | null;
}

/**
 * Pages rows already in their report order. `after` is the opaque cursor of the last row of the
 * previous page (its sort key), so a page never repeats or skips a row that was there before.
 * `isAfter(row, key)` tells whether a row comes after the cursor's sort key.
 */
export function pageRows<T>(
  rows: T[],
  limit: number,
  after: string | undefined,
  sortKey: (row: T) => unknown[],
  isAfter: (row: T, key: unknown[]) => boolean,
): ReportPage<T> {
  let start = 0;
  if (after !== undefined) {
    const key = decodeCursor(after);
    start = rows.findIndex((row) => isAfter(row, key));
    if (start < 0) start = rows.length;
  }
  const data = rows.slice(start, start + limit);
  const hasMore = start + limit < rows.length;
  return {
    data,
    hasMore,
    nextAfter: hasMore ? encodeCursor(sortKey(data[data.length - 1])) : null,
  };
}

function encodeCursor(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string): unknown[] {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key)) return key;
  } catch {
    // Reported below.
  }
  throw new GatewayException('invalid_parameter', {
    param: 'after',
    message: '`after` must be the `next_after` of a previous page of this report.',
  });
}
