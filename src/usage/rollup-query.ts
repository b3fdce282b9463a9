import type { SplitRange } from './report-range';

type Source = 'weekly' | 'daily' | 'raw';

/** A grouping column as each source spells it; null: that source cannot give it (days of a week). */
export type GroupColumn = Record<Source, string | null>;

export const GROUP_COLUMNS = {
  key: { weekly: `"key_id"::text`, daily: `"key_id"::text`, raw: `"key_id"::text` },
  // '' is "no team" / "no deployment" in the rollups.
  team: { weekly: `"team_id"`, daily: `"team_id"`, raw: `COALESCE("team_id"::text, '')` },
  model: { weekly: `"public_model"`, daily: `"public_model"`, raw: `"public_model"` },
  deployment: { weekly: `"deployment"`, daily: `"deployment"`, raw: `COALESCE("deployment", '')` },
  endpoint: { weekly: `"endpoint"`, daily: `"endpoint"`, raw: `"endpoint"` },
  day: {
    weekly: null,
    daily: `to_char("day", 'YYYY-MM-DD')`,
    raw: `to_char(("created_at" AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`,
  },
} satisfies Record<string, GroupColumn>;

/** The start of a bucket of `seconds` (a divisor of a week), in epoch seconds. */
export function bucketColumn(seconds: number): GroupColumn {
  const s = Math.trunc(seconds);
  return {
    weekly:
      seconds % (7 * 86_400) === 0 ? `(("week" - DATE '1970-01-01') * 86400 / ${s}) * ${s}` : null,
    daily: seconds % 86_400 === 0 ? `(("day" - DATE '1970-01-01') * 86400 / ${s}) * ${s}` : null,
    raw: `(floor(extract(epoch FROM "created_at") / ${s}) * ${s})::bigint`,
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
  const params: unknown[] = [];
  const param = (value: unknown, cast: string) => `$${params.push(value)}::${cast}`;
  const where = (source: Source) => {
    const conditions: string[] = [];
    if (filters.keyId) conditions.push(`"key_id" = ${param(filters.keyId, 'uuid')}`);
    if (filters.teamId)
      conditions.push(`"team_id" = ${param(filters.teamId, source === 'raw' ? 'uuid' : 'text')}`);
    if (filters.model) conditions.push(`"public_model" = ${param(filters.model, 'text')}`);
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
  if (range.weeks)
    parts.push(rollup('weekly', 'usage_weekly', 'week', range.weeks.from, range.weeks.to));
  for (const days of range.days)
    parts.push(rollup('daily', 'usage_daily', 'day', days.from, days.to));
  if (range.raw.length > 0) {
    const times = range.raw
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
  return {
    sql: `SELECT ${keys}, ${measures.map((m) => `sum("${m}")::text AS "${m}"`).join(', ')}
      FROM (${parts.join('\n UNION ALL ')}) AS "parts" GROUP BY ${keys}`,
    params,
  };
}
