import type { Pool } from 'pg';
import type { SplitRange } from './report-range';

type Source = 'weekly' | 'daily' | 'hourly' | 'raw';

/**
 * A grouping column as each source spells it; null: that source cannot give it (the days of a
 * week; the team or deployment of an hour, which usage_hourly leaves out, as spend reports
 * cover whole days). Rows are grouped by the plain value; `output` turns a group's value into
 * what the report shows, once per group rather than once per row.
 */
export type GroupColumn = Record<Source, string | null> & {
  output?: (column: string) => string;
};

export const GROUP_COLUMNS = {
  // A uuid, grouped as one (cheaper than its text); the driver hands it over as a string.
  key: { weekly: `"key_id"`, daily: `"key_id"`, hourly: `"key_id"`, raw: `"key_id"` },
  // '' is "no team" / "no deployment" in the rollups.
  team: {
    weekly: `"team_id"`,
    daily: `"team_id"`,
    hourly: null,
    raw: `COALESCE("team_id"::text, '')`,
  },
  model: {
    weekly: `"public_model"`,
    daily: `"public_model"`,
    hourly: `"public_model"`,
    raw: `"public_model"`,
  },
  deployment: {
    weekly: `"deployment"`,
    daily: `"deployment"`,
    hourly: null,
    raw: `COALESCE("deployment", '')`,
  },
  endpoint: { weekly: `"endpoint"`, daily: `"endpoint"`, hourly: `"endpoint"`, raw: `"endpoint"` },
  // Only usage_daily_end_user has it (END_USER_ROLLUP).
  end_user: { weekly: null, daily: `"end_user"`, hourly: null, raw: `"end_user"` },
  day: {
    weekly: null,
    daily: `"day"`,
    hourly: `("hour" AT TIME ZONE 'UTC')::date`,
    raw: `("created_at" AT TIME ZONE 'UTC')::date`,
    output: (column) => `to_char(${column}, 'YYYY-MM-DD')`,
  },
} satisfies Record<string, GroupColumn>;

const EPOCH = `TIMESTAMPTZ '1970-01-01 00:00:00+00'`;

/**
 * The start of a bucket of `seconds` (a divisor of a week), sent as ISO 8601 text in UTC with
 * milliseconds, as JavaScript's toISOString writes it. Buckets of whole days are grouped as the
 * UTC date they start on, which for days and weeks is the rollup's own column; shorter ones as a
 * timestamptz, from date_bin (integer arithmetic: floor of a numeric epoch cost twice as much per
 * row), or for hours the hourly rollup's own column. Grouping by a plain column costs half as much
 * as by an expression of it, measured on the dashboard's views.
 */
export function bucketColumn(seconds: number): GroupColumn {
  const s = Math.trunc(seconds);
  if (s % 86_400 === 0) {
    const days = s / 86_400;
    // Whole `days` since 1970-01-01, a Thursday, as usage_weekly's weeks are.
    const of = (date: string) =>
      days === 1 ? date : `(${date} - ((${date} - DATE '1970-01-01') % ${days}))`;
    return {
      weekly: days === 7 ? `"week"` : null,
      daily: of(`"day"`),
      hourly: of(`("hour" AT TIME ZONE 'UTC')::date`),
      raw: of(`("created_at" AT TIME ZONE 'UTC')::date`),
      output: (column) => `to_char(${column}::timestamp, 'YYYY-MM-DD"T00:00:00.000Z"')`,
    };
  }
  return {
    weekly: null,
    daily: null,
    hourly:
      s === 3600 ? `"hour"` : s % 3600 === 0 ? `date_bin('${s} seconds', "hour", ${EPOCH})` : null,
    raw: `date_bin('${s} seconds', "created_at", ${EPOCH})`,
    output: (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  };
}

/**
 * Each measure as a rollup row holds it, and as raw rows add up to it. Counts are integers, as
 * in the rollups, so that the sums over both stay on Postgres's fast integer path (a bigint column
 * would turn every count's sum into a numeric one); raw rows cover hours at most.
 */
const MEASURES = {
  requests: `count(*)::int`,
  completed: `(count(*) FILTER (WHERE "status" = 'completed'))::int`,
  failed: `(count(*) FILTER (WHERE "status" = 'failed'))::int`,
  aborted: `(count(*) FILTER (WHERE "status" = 'aborted'))::int`,
  prompt_tokens: `sum("prompt_tokens")`,
  completion_tokens: `sum("completion_tokens")`,
  cached_tokens: `COALESCE(sum("cached_tokens"), 0)`,
  cache_write_tokens: `COALESCE(sum("cache_write_tokens"), 0)`,
  reasoning_tokens: `COALESCE(sum("reasoning_tokens"), 0)`,
  cost_usd: `COALESCE(sum("cost_usd"), 0)`,
  unpriced_requests: `(count(*) FILTER (WHERE "cost_usd" IS NULL))::int`,
  latency_ms: `sum("latency_ms")`,
};
export type Measure = keyof typeof MEASURES;

export interface RollupFilters {
  keyId?: string;
  /** Any of these keys (the keys in a dashboard user's reach). */
  keyIds?: string[];
  teamId?: string;
  model?: string;
  endUser?: string;
}

/**
 * Spend by end user has daily rollups of its own, for the requests that named one, and no weekly
 * or hourly ones (docs/spend.md, "Spend by end user"): a query that groups or filters by end user
 * reads its whole weeks as days there, its whole hours as raw rows, and only the raw rows that
 * name an end user. That table has the key, team, model and endpoint columns, not the deployment.
 */
const END_USER_ROLLUP = 'usage_daily_end_user';

/** The split range with its whole weeks read as days and its whole hours as raw rows. */
function asDays(range: SplitRange): SplitRange {
  const periods = range.weeks ? [range.weeks, ...range.days] : range.days;
  const raw = [...range.raw, ...range.hours];
  if (periods.length === 0) return { weeks: null, days: [], hours: [], raw };
  // Contiguous periods (days, weeks, days): the earliest start and the latest end bound them all.
  const from = periods.map((period) => period.from).sort()[0];
  const to = periods.map((period) => period.to).sort()[periods.length - 1];
  return { weeks: null, days: [{ from, to }], hours: [], raw };
}

/**
 * One SQL statement that sums `measures` per `groups` over a split range: the weekly rollups for
 * whole weeks, the daily ones for the other whole days, the hourly ones for the other whole
 * hours, the raw records for the partial hours (docs/usage.md, "Reports at scale"). Its rows have
 * the groups as g0, g1, … and every measure as text (exact: cost_usd is numeric). Expressions come
 * from the tables above, values only as parameters.
 *
 * With `sets` (lists of indexes into `groups`), the rows are those of each grouping set instead:
 * the groups a row's set leaves out are NULL. One statement then gives several breakdowns, each
 * with as many rows as it needs rather than the rows of every combination.
 */
export function rollupQuery(
  range: SplitRange,
  groups: GroupColumn[],
  measures: readonly Measure[],
  filters: RollupFilters,
  sets?: number[][],
): { sql: string; params: unknown[] } | null {
  const endUsers = filters.endUser !== undefined || groups.includes(GROUP_COLUMNS.end_user);
  const split = endUsers ? asDays(range) : range;
  const params: unknown[] = [];
  const param = (value: unknown, cast: string) => `$${params.push(value)}::${cast}`;
  const where = (source: Source) => {
    const conditions: string[] = [];
    if (filters.keyId) conditions.push(`"key_id" = ${param(filters.keyId, 'uuid')}`);
    if (filters.keyIds) conditions.push(`"key_id" = ANY(${param(filters.keyIds, 'uuid[]')})`);
    if (filters.teamId) {
      if (source === 'hourly') throw new Error('usage_hourly has no team');
      conditions.push(`"team_id" = ${param(filters.teamId, source === 'raw' ? 'uuid' : 'text')}`);
    }
    if (filters.model) conditions.push(`"public_model" = ${param(filters.model, 'text')}`);
    if (filters.endUser) conditions.push(`"end_user" = ${param(filters.endUser, 'text')}`);
    else if (endUsers && source === 'raw') conditions.push(`"end_user" IS NOT NULL`);
    return conditions.map((condition) => ` AND ${condition}`).join('');
  };
  const columns = (source: Source) =>
    groups
      .map((group, index) => {
        if (group[source] === null) throw new Error(`group ${index} cannot be read from ${source}`);
        return `${group[source]} AS "g${index}"`;
      })
      .join(', ');
  const parts: string[] = [];
  const rollup = (
    source: 'weekly' | 'daily' | 'hourly',
    period: string,
    from: string,
    to: string,
    cast: string,
  ) =>
    `SELECT ${columns(source)}, ${measures.map((m) => `"${m}"`).join(', ')}
      FROM "${source === 'daily' && endUsers ? END_USER_ROLLUP : `usage_${source}`}"
      WHERE "${period}" >= ${param(from, cast)} AND "${period}" < ${param(to, cast)}${where(source)}`;
  if (split.weeks) parts.push(rollup('weekly', 'week', split.weeks.from, split.weeks.to, 'date'));
  for (const days of split.days) parts.push(rollup('daily', 'day', days.from, days.to, 'date'));
  for (const hours of split.hours)
    parts.push(
      rollup('hourly', 'hour', hours.from.toISOString(), hours.to.toISOString(), 'timestamptz'),
    );
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
  const outputs = groups
    .map(({ output }, index) =>
      output ? `${output(`"g${index}"`)} AS "g${index}"` : `"g${index}"`,
    )
    .join(', ');
  const groupBy = sets
    ? `GROUPING SETS (${sets.map((set) => `(${set.map((index) => `"g${index}"`).join(', ')})`).join(', ')})`
    : keys;
  // Raw rows alone (a range within an hour, or buckets under an hour) are grouped once, not twice.
  if (parts.length === 1 && split.raw.length > 0 && !sets)
    return {
      sql: `SELECT ${outputs}, ${measures.map((m) => `"${m}"::text AS "${m}"`).join(', ')}
        FROM (${parts[0]}) AS "parts"`,
      params,
    };
  return {
    sql: `SELECT ${outputs}, ${measures.map((m) => `sum("${m}")::text AS "${m}"`).join(', ')}
      FROM (${parts.join('\n UNION ALL ')}) AS "parts" GROUP BY ${groupBy}`,
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
