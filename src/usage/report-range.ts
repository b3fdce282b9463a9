import { GatewayException } from '../common/errors/gateway.exception';

export const DAY_MS = 86_400_000;
/** A report without `from` covers this many days before `to` (docs/usage.md, "Reports at scale"). */
export const DEFAULT_REPORT_DAYS = 30;
/** Rows per page of a report, unless `limit` says otherwise, and the most it may say. */
export const DEFAULT_REPORT_LIMIT = 100;
export const MAX_REPORT_LIMIT = 10_000;

const WEEK_MS = 7 * DAY_MS;

/**
 * A report's range cut where the rollups can answer: whole weeks (Thursday to Thursday, as the
 * dashboard's 7-day buckets, YYYY-MM-DD, first included) from usage_weekly, the other whole UTC
 * days from usage_daily, and only the partial days at the ends (`raw`, [from, to) instants) from
 * usage_records. A report grouped by day reads no weeks; one in sub-day buckets reads raw rows.
 */
export interface SplitRange {
  weeks: { from: string; to: string } | null;
  days: Array<{ from: string; to: string }>;
  raw: Array<{ from: Date; to: Date }>;
}

export type RollupDepth = 'weeks' | 'days' | 'raw';

export function splitRange(from: Date, to: Date, depth: RollupDepth = 'weeks'): SplitRange {
  const firstDay = Math.ceil(from.getTime() / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(to.getTime() / DAY_MS) * DAY_MS;
  if (depth === 'raw' || firstDay >= lastDay)
    return { weeks: null, days: [], raw: from < to ? [{ from, to }] : [] };
  const raw: SplitRange['raw'] = [];
  if (from.getTime() < firstDay) raw.push({ from, to: new Date(firstDay) });
  if (lastDay < to.getTime()) raw.push({ from: new Date(lastDay), to });
  const firstWeek = Math.ceil(firstDay / WEEK_MS) * WEEK_MS;
  const lastWeek = Math.floor(lastDay / WEEK_MS) * WEEK_MS;
  if (depth === 'days' || firstWeek >= lastWeek)
    return { weeks: null, days: [{ from: dayOf(firstDay), to: dayOf(lastDay) }], raw };
  const days: SplitRange['days'] = [];
  if (firstDay < firstWeek) days.push({ from: dayOf(firstDay), to: dayOf(firstWeek) });
  if (lastWeek < lastDay) days.push({ from: dayOf(lastWeek), to: dayOf(lastDay) });
  return { weeks: { from: dayOf(firstWeek), to: dayOf(lastWeek) }, days, raw };
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
