import type { INestApplicationContext } from '@nestjs/common';
import { toCsv } from '../common/http/csv';
import type { BudgetPeriod } from '../common/time/budget-period';
import { presentKey } from '../keys/virtual-key.presenter';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { presentTeam, TeamsService } from '../teams/teams.service';
import type { TeamSettings } from '../teams/team.types';
import { MAX_REPORT_LIMIT, pageRows } from '../usage/report-range';
import { SpendReport, type SpendGroupBy } from '../usage/spend-report.service';
import type { CliOutput } from './commands';

// Teams and spend on the command line (docs/spend.md): the same services as /admin/teams and
// /admin/spend. In every option, null clears a setting and undefined leaves it alone.

export interface TeamOptions extends TeamSettings {
  name?: string;
  json: boolean;
}

export async function createTeam(
  app: INestApplicationContext,
  options: TeamOptions & { name: string },
  io: CliOutput,
): Promise<void> {
  const team = await app.get(TeamsService).create(options);
  if (options.json) return io.out(JSON.stringify(presentTeam(team)));
  io.out(`Created team "${team.name}" (id ${team.id}).`);
}

export async function updateTeam(
  app: INestApplicationContext,
  idOrName: string,
  options: TeamOptions,
  io: CliOutput,
): Promise<void> {
  const team = await app.get(TeamsService).update(idOrName, options);
  if (options.json) return io.out(JSON.stringify(presentTeam(team)));
  io.out(`Updated team "${team.name}" (id ${team.id}).`);
}

export async function deleteTeam(
  app: INestApplicationContext,
  idOrName: string,
  io: CliOutput,
): Promise<void> {
  const { team, keysLeft } = await app.get(TeamsService).remove(idOrName);
  io.out(`Deleted team "${team.name}" (id ${team.id}); ${keysLeft} key(s) left it.`);
}

export async function listTeams(
  app: INestApplicationContext,
  json: boolean,
  io: CliOutput,
): Promise<void> {
  const teams = await app.get(TeamsService).list();
  if (json) return io.out(JSON.stringify(teams.map(presentTeam)));
  if (teams.length === 0) return io.out('No teams.');
  io.out(['ID', 'NAME', 'BUDGET_USD', 'TOKEN_BUDGET', 'PERIOD', 'MODELS'].join('\t'));
  for (const team of teams)
    io.out(
      [
        team.id,
        team.name,
        team.budgetUsd ?? '-',
        team.tokenBudget ?? '-',
        team.budgetPeriod ?? '-',
        team.allowedModels.join(',') || 'all',
      ].join('\t'),
    );
}

export interface KeyUpdateOptions {
  /** A team id or name; null takes the key out of its team. */
  team?: string | null;
  budgetUsd?: string | null;
  budgetPeriod?: BudgetPeriod | null;
  json: boolean;
}

/** Moves a key between teams and sets its dollar budget. */
export async function updateKey(
  app: INestApplicationContext,
  idOrName: string,
  options: KeyUpdateOptions,
  io: CliOutput,
): Promise<void> {
  const teamId =
    options.team === undefined || options.team === null
      ? options.team
      : (await app.get(TeamsService).get(options.team)).id;
  const key = await app.get(VirtualKeyService).update(idOrName, {
    teamId,
    budgetUsd: options.budgetUsd,
    budgetPeriod: options.budgetPeriod,
  });
  if (options.json) return io.out(JSON.stringify(presentKey(key)));
  io.out(`Updated key "${key.name}" (id ${key.id}); team ${key.teamId ?? 'none'}.`);
}

export interface SpendOptions {
  groupBy: SpendGroupBy;
  from?: string;
  to?: string;
  keyId?: string;
  /** A team id or name. */
  team?: string;
  model?: string;
  /** Rows per page (default and most: MAX_REPORT_LIMIT); `after` is the previous page's cursor. */
  limit?: number;
  after?: string;
  format: 'table' | 'json' | 'csv';
}

export async function spend(
  app: INestApplicationContext,
  options: SpendOptions,
  io: CliOutput,
): Promise<void> {
  const teams = app.get(TeamsService);
  const teamId = options.team ? (await teams.get(options.team)).id : undefined;
  const limit = options.limit ?? MAX_REPORT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_REPORT_LIMIT)
    throw new Error(`--limit must be a whole number from 1 to ${MAX_REPORT_LIMIT}`);
  const { groups } = await app.get(SpendReport).report({
    groupBy: options.groupBy,
    from: options.from,
    to: options.to,
    keyId: options.keyId,
    teamId,
    model: options.model,
  });
  const names =
    options.groupBy === 'key'
      ? await app.get(VirtualKeyService).namesById()
      : options.groupBy === 'team'
        ? await teams.namesById()
        : new Map<string, string>();
  const page = pageRows(
    groups,
    limit,
    options.after,
    (group) => [group.group],
    (group, [after]) => group.group > String(after),
  );
  // Said on stderr, so that a JSON or CSV on stdout stays whole.
  if (page.nextAfter) process.stderr.write(`More rows follow: add --after ${page.nextAfter}\n`);
  const rows = page.data.map((group) => ({
    [options.groupBy]: group.group || '-',
    name: names.get(group.group) ?? '',
    requests: group.requests,
    prompt_tokens: group.promptTokens,
    completion_tokens: group.completionTokens,
    cached_tokens: group.cachedTokens,
    reasoning_tokens: group.reasoningTokens,
    cost_usd: group.costUsd,
    unpriced_requests: group.unpricedRequests,
  }));
  if (options.format === 'json') return io.out(JSON.stringify(rows));
  const header = [
    options.groupBy,
    'name',
    'requests',
    'prompt_tokens',
    'completion_tokens',
    'cached_tokens',
    'reasoning_tokens',
    'cost_usd',
    'unpriced_requests',
  ];
  if (options.format === 'csv')
    return io.out(
      toCsv(
        header,
        rows.map((row) => Object.values(row)),
        ['cost_usd'],
      ).trimEnd(),
    );
  if (rows.length === 0) return io.out('No spend recorded for this selection.');
  io.out(header.map((h) => h.toUpperCase()).join('\t'));
  for (const row of rows) io.out(Object.values(row).join('\t'));
}
