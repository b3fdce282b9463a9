import type { Pool } from 'pg';
import type { SplitRange } from './report-range';

type Source = 'weekly' | 'daily' | 'raw';

/** A grouping column as each source spells it; null: that source cannot give it (days of a week). */
export type GroupColumn = Record<Source, string | null>;

export const GROUP_COLUMNS = {
  // A uuid, grouped as one (cheaper than its text); the driver hands it over as a string.
  key: { weekly: `"key_id"`, daily: `"key_id"`, raw: `"key_id"` },
  // '' is "no team" / "no deployment" in the rollups.
  team: { weekly: `"team_id"`, daily: `"team_id"`, raw: `COALESCE("team_id"::text, '')` },
  model: { weekly: `"public_model"`, daily: `"public_model"`, raw: `"public_model"` },
  deployment: { weekly: `"deployment"`, daily: `"deployment"`, raw: `COALESCE("deployment", '')` },
  endpoint: { weekly: `"endpoint"`, daily: `"endpoint"`, raw: `"endpoint"` },
  // Only usage_daily_end_user has it (END_USER_ROLLUP).
  end_user: { weekly: null, daily: `"end_user"`, raw: `"end_user"` },
  day: {
    weekly: null,
    daily: `to_char("day", 'YYYY-MM-DD')`,
    raw: `to_char(("created_at" AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`,
  },
} satisfies Record<string, GroupColumn>;

const EPOCH = `TIMESTAMPTZ '1970-01-01 00:00:00+00'`;

/**
 * The start of a bucket of `seconds` (a divisor of a week), as a timestamptz. Raw rows use
 * date_bin, which works on integers (floor of a numeric epoch cost twice as much per row).
 */
export function bucketColumn(seconds: number): GroupColumn {
  const s = Math.trunc(seconds);
  const ofDate = (column: string) =>
    `${EPOCH} + make_interval(secs => ((("${column}" - DATE '1970-01-01') * 86400 / ${s}) * ${s}))`;
  return {
    weekly: seconds % (7 * 86_400) === 0 ? ofDate('week') : null,
    daily: seconds % 86_400 === 0 ? ofDate('day') : null,
    raw: `date_bin('${s} seconds', "created_at", ${EPOCH})`,
  };
}

/** Each measure as a rollup row holds it, and as raw rows add up to it. */
const MEASURES = {
  requests: `count(*)`,
  completed: `count(*) FILTER (WHERE "status" = 'completed')`,
  failed: `count(*) FILTER (WHERE "status" = 'failed')`,
  aborted: `count(*) FILTER (WHERE "status" = 'aborted')`,
  prompt_tokens: `sum("prompt_tokens")`,
  completion_tokens: `sum("completion_tokens")`,
  cached_tokens: `COALESCE(sum("cached_tokens"), 0)`,
  cache_write_tokens: `COALESCE(sum("cache_write_tokens"), 0)`,
  reasoning_tokens: `COALESCE(sum("reasoning_tokens"), 0)`,
  cost_usd: `COALESCE(sum("cost_usd"), 0)`,
  unpriced_requests: `count(*) FILTER (WHERE "cost_usd" IS NULL)`,
  latency_ms: `sum("latency_ms")`,
};
export type Measure = keyof typeof MEASURES;

export interface RollupFilters {
  keyId?: string;
  teamId?: string;
  model?: string;
  endUser?: string;
}

/**
 * Spend by end user has daily rollups of its own, for the requests that named one, and no weekly
 * ones (docs/spend.md, "Spend by end user"): a query that groups or filters by end user reads its
 * whole weeks as days there, and only the raw rows that name an end user. That table has the key,
 * team, model and endpoint columns, not the deployment.
 */
const END_USER_ROLLUP = 'usage_daily_end_user';

/** The split range with its whole weeks read as days: one range from the first day to the last. */
function asDays(range: SplitRange): SplitRange {
  const periods = range.weeks ? [range.weeks, ...range.days] : range.days;
  if (periods.length === 0) return range;
  // Contiguous periods (days, weeks, days): the earliest start and the latest end bound them all.
  const from = periods.map((period) => period.from).sort()[0];
  const to = periods.map((period) => period.to).sort()[periods.length - 1];
  return { weeks: null, days: [{ from, to }], raw: range.raw };
}

/**
 * One SQL statement that sums `measures` per `groups` over a split range: the weekly rollups for
 * whole weeks, the daily ones for the other whole days, the raw records for the partial days
 * (docs/usage.md, "Reports at scale"). Its rows have the groups as g0, g1, … and every measure
 * as text (exact: cost_usd is numeric). Expressions come from the tables above, values only as
 * parameters.
 */
export function rollupQuery(
  range: SplitRange,
  groups: GroupColumn[],
  measures: readonly Measure[],
  filters: RollupFilters,
): { sql: string; params: unknown[] } | null {
  const endUsers = filters.endUser !== undefined || groups.includes(GROUP_COLUMNS.end_user);
  const split = endUsers ? asDays(range) : range;
  const dailyTable = endUsers ? END_USER_ROLLUP : 'usage_daily';
  const params: unknown[] = [];
  const param = (value: unknown, cast: string) => `$${params.push(value)}::${cast}`;
  const where = (source: Source) => {
    const conditions: string[] = [];
    if (filters.keyId) conditions.push(`"key_id" = ${param(filters.keyId, 'uuid')}`);
    if (filters.teamId)
      conditions.push(`"team_id" = ${param(filters.teamId, source === 'raw' ? 'uuid' : 'text')}`);
    if (filters.model) conditions.push(`"public_model" = ${param(filters.model, 'text')}`);
    if (filters.endUser) conditions.push(`"end_user" = ${param(filters.endUser, 'text')}`);
    else if (endUsers && source === 'raw') conditions.push(`"end_user" IS NOT NULL`);
    return conditions.map((condition) => ` AND ${condition}`).join('');
  };
  const columns = (source: Source) =>
    groups.map((group, index) => `${group[source]} AS "g${index}"`).join(', ');
  const parts: string[] = [];
  const rollup = (
    source: 'weekly' | 'daily',
    table: string,
    period: string,
    from: string,
    to: string,
  ) =>
    `SELECT ${columns(source)}, ${measures.map((m) => `"${m}"`).join(', ')} FROM "${table}"
      WHERE "${period}" >= ${param(from, 'date')} AND "${period}" < ${param(to, 'date')}${where(source)}`;
  if (split.weeks)
    parts.push(rollup('weekly', 'usage_weekly', 'week', split.weeks.from, split.weeks.to));
  for (const days of split.days) parts.push(rollup('daily', dailyTable, 'day', days.from, days.to));
  if (split.raw.length > 0) {
    const times = split.raw
      .map(
        ({ from, to }) =>
          `("created_at" >= ${param(from, 'timestamptz')} AND "created_at" < ${param(to, 'timestamptz')})`,
      )
      .join(' OR ');
    parts.push(
      `SELECT ${columns('raw')}, ${measures.map((m) => `${MEASURES[m]} AS "${m}"`).join(', ')}
        FROM "usage_records" WHERE (${times})${where('raw')}
        GROUP BY ${groups.map((_group, index) => index + 1).join(', ')}`,
    );
  }
  if (parts.length === 0) return null;
  const keys = groups.map((_group, index) => `"g${index}"`).join(', ');
  // Raw rows alone (a range within a day, or sub-day buckets) are grouped once, not twice.
  if (parts.length === 1 && !split.weeks && split.days.length === 0)
    return {
      sql: `SELECT ${keys}, ${measures.map((m) => `"${m}"::text AS "${m}"`).join(', ')}
        FROM (${parts[0]}) AS "parts"`,
      params,
    };
  return {
    sql: `SELECT ${keys}, ${measures.map((m) => `sum("${m}")::text AS "${m}"`).join(', ')}
      FROM (${parts.join('\n UNION ALL ')}) AS "parts" GROUP BY ${keys}`,
    params,
  };
}

/**
 * Runs a report's statement in a read-only transaction of its own: without JIT, whose compile
 * costs a short report more than it saves, and with room to group in memory rather than sort
 * on disk.
 */
export async function runRollupQuery<T>(
  pool: Pool,
  statement: { sql: string; params: unknown[] },
): Promise<T[]> {
  const client = await pool.connect();
  try {
    await client.query(`BEGIN READ ONLY; SET LOCAL jit = off; SET LOCAL work_mem = '64MB'`);
    const result = await client.query(statement.sql, statement.params);
    await client.query('COMMIT');
    return result.rows as T[];
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
