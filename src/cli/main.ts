import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { CliModule } from './cli.module';
import { loadAppConfig } from '../config/app-config';
import { BUDGET_PERIODS, BudgetPeriod } from '../keys/virtual-key.types';
import { createKey, listKeys, migrate, revokeKey, rotateKey, seedKeys } from './commands';
import { isBudgetUsd, MAX_BUDGET_USD } from '../common/money/price';
import { SPEND_GROUPS, type SpendGroupBy } from '../usage/spend-report.service';
import { createTeam, deleteTeam, listTeams, spend, updateKey, updateTeam } from './spend-commands';

const USAGE = `Usage: gateway <command>

  keys create --name NAME [--rpm N] [--tpm N] [--budget N] [--budget-usd D]
              [--budget-period day|month|total] [--team TEAM] [--models a,b]
              [--expires ISO-DATE] [--json]
  keys update <id-or-name> [--team TEAM|none] [--budget-usd D|none]
              [--budget-period day|month|total|none] [--json]
  keys list [--json]
  keys revoke <id-or-name>
  keys rotate <id-or-name> [--grace-seconds N] [--json]   (default grace: 3600 s)
  teams create --name NAME [--budget-usd D] [--budget N] [--budget-period P]
               [--models a,b] [--json]
  teams update <id-or-name> [--name NAME] [--budget-usd D|none] [--budget N|none]
               [--budget-period P|none] [--models a,b|all] [--json]
  teams list [--json]
  teams delete <id-or-name>       (its keys stay, without a team)
  spend [--group-by key|team|model|deployment|day|end_user] [--from YYYY-MM-DD] [--to YYYY-MM-DD]
        [--key KEY-ID] [--team TEAM] [--model MODEL] [--json|--csv] [--limit N] [--after C]
                    spend from the rollups (end_user: the requests that named one); --to is
                    the first day excluded, --from defaults to 30 days before it; a page of
                    --limit rows (10000), the next one --after
  db migrate        apply pending migrations to DATABASE_URL
  db seed           upsert the keys declared in GATEWAY_SEED_KEYS / GATEWAY_SEED_FILE

Without DATABASE_URL the commands use the embedded database in GATEWAY_DATA_DIR
(through the running gateway, when one is running).`;

const io = { out: (text: string) => process.stdout.write(`${text}\n`) };

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      rpm: { type: 'string' },
      tpm: { type: 'string' },
      models: { type: 'string' },
      expires: { type: 'string' },
      budget: { type: 'string' },
      'budget-period': { type: 'string' },
      'budget-usd': { type: 'string' },
      team: { type: 'string' },
      'group-by': { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      key: { type: 'string' },
      model: { type: 'string' },
      csv: { type: 'boolean', default: false },
      limit: { type: 'string' },
      after: { type: 'string' },
      'grace-seconds': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [group, command, argument] = positionals;
  const known = [
    'keys create',
    'keys update',
    'keys list',
    'keys revoke',
    'keys rotate',
    'teams create',
    'teams update',
    'teams list',
    'teams delete',
    'spend',
    'db migrate',
    'db seed',
  ];
  const name = group === 'spend' && command === undefined ? 'spend' : `${group} ${command}`;
  if (values.help || !known.includes(name)) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (group === 'keys' && command === 'create' && !values.name)
    throw new UsageError('keys create needs --name NAME');
  if (group === 'keys' && ['revoke', 'rotate', 'update'].includes(command) && !argument) {
    throw new UsageError(`keys ${command} needs the id or name of a key`);
  }
  if (group === 'teams' && command === 'create' && !values.name)
    throw new UsageError('teams create needs --name NAME');
  if (group === 'teams' && ['update', 'delete'].includes(command) && !argument)
    throw new UsageError(`teams ${command} needs the id or name of a team`);
  const clearable = name === 'keys update' || name === 'teams update';
  const budgetPeriod = values['budget-period'];
  if (
    budgetPeriod !== undefined &&
    !(clearable && budgetPeriod === 'none') &&
    !BUDGET_PERIODS.includes(budgetPeriod as BudgetPeriod)
  ) {
    throw new UsageError(`--budget-period must be one of ${BUDGET_PERIODS.join(', ')}`);
  }
  if (
    !clearable &&
    (values.budget !== undefined || values['budget-usd'] !== undefined) !==
      (budgetPeriod !== undefined)
  )
    throw new UsageError('--budget-period goes with --budget and/or --budget-usd');
  const groupBy = values['group-by'] ?? 'key';
  if (!SPEND_GROUPS.includes(groupBy as SpendGroupBy))
    throw new UsageError(`--group-by must be one of ${SPEND_GROUPS.join(', ')}`);
  for (const flag of ['from', 'to'] as const)
    if (values[flag] !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values[flag]))
      throw new UsageError(`--${flag} must be a UTC day written YYYY-MM-DD`);
  const period = (value: string | undefined) =>
    value === 'none' ? null : (value as BudgetPeriod | undefined);
  const models = (value: string | undefined) =>
    value === 'all'
      ? []
      : value
          ?.split(',')
          .map((m) => m.trim())
          .filter(Boolean);

  const app = await NestFactory.createApplicationContext(
    CliModule.forCommand(loadAppConfig(process.env), {
      allowUnmigrated: `${group} ${command}` === 'db migrate',
    }),
    {
      logger: false,
      abortOnError: false,
    },
  );
  try {
    switch (name) {
      case 'keys create':
        await createKey(
          app,
          {
            name: values.name!,
            json: values.json!,
            rpm: limit(values.rpm, '--rpm'),
            tpm: limit(values.tpm, '--tpm'),
            models: values.models
              ?.split(',')
              .map((m) => m.trim())
              .filter(Boolean),
            expires: date(values.expires, '--expires'),
            budget: positiveInt(values.budget, '--budget'),
            budgetUsd: usd(values['budget-usd']) ?? undefined,
            budgetPeriod: budgetPeriod as BudgetPeriod | undefined,
            team: values.team,
          },
          io,
        );
        break;
      case 'keys update':
        await updateKey(
          app,
          argument,
          {
            team: values.team === 'none' ? null : values.team,
            budgetUsd: usd(values['budget-usd']),
            budgetPeriod: period(budgetPeriod),
            json: values.json!,
          },
          io,
        );
        break;
      case 'teams create':
        await createTeam(
          app,
          {
            name: values.name!,
            budgetUsd: usd(values['budget-usd']) ?? undefined,
            tokenBudget: positiveInt(values.budget, '--budget'),
            budgetPeriod: budgetPeriod as BudgetPeriod | undefined,
            allowedModels: models(values.models),
            json: values.json!,
          },
          io,
        );
        break;
      case 'teams update':
        await updateTeam(
          app,
          argument,
          {
            name: values.name,
            budgetUsd: usd(values['budget-usd']),
            tokenBudget: values.budget === 'none' ? null : positiveInt(values.budget, '--budget'),
            budgetPeriod: period(budgetPeriod),
            allowedModels: models(values.models),
            json: values.json!,
          },
          io,
        );
        break;
      case 'teams list':
        await listTeams(app, values.json!, io);
        break;
      case 'teams delete':
        await deleteTeam(app, argument, io);
        break;
      case 'spend':
        await spend(
          app,
          {
            groupBy: groupBy as SpendGroupBy,
            from: values.from,
            to: values.to,
            keyId: values.key,
            team: values.team,
            model: values.model,
            limit: values.limit === undefined ? undefined : Number(values.limit),
            after: values.after,
            format: values.csv ? 'csv' : values.json ? 'json' : 'table',
          },
          io,
        );
        break;
      case 'keys list':
        await listKeys(app, values.json!, io);
        break;
      case 'keys revoke':
        await revokeKey(app, argument, io);
        break;
      case 'keys rotate':
        await rotateKey(
          app,
          argument,
          {
            graceSeconds: nonNegativeInt(values['grace-seconds'] ?? '3600', '--grace-seconds'),
            json: values.json!,
          },
          io,
        );
        break;
      case 'db migrate':
        await migrate(app, io);
        break;
      case 'db seed':
        await seedKeys(app, io);
        break;
    }
  } finally {
    await app.close();
  }
  return 0;
}

class UsageError extends Error {}

/** A dollar amount as a decimal string, checked as the admin API checks it; "none" clears. */
function usd(value: string | undefined): string | null | undefined {
  if (value === undefined || value === 'none') return value === 'none' ? null : undefined;
  if (!isBudgetUsd(value))
    throw new UsageError(
      `--budget-usd must be US dollars above 0 and at most ${MAX_BUDGET_USD}, with at most 6 decimal places, e.g. 25.50`,
    );
  return value;
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new UsageError(`${flag} must be a positive integer`);
  return number;
}

/** A per-key limit: 0 means no limit of that kind, even where the gateway has a default. */
function limit(value: string | undefined, flag: string): number | undefined {
  return value === undefined ? undefined : nonNegativeInt(value, flag);
}

function nonNegativeInt(value: string, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new UsageError(`${flag} must be a whole number (0 or more)`);
  return number;
}

function date(value: string | undefined, flag: string): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime()))
    throw new UsageError(`${flag} must be a date such as 2027-01-31T00:00:00Z`);
  return parsed;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`gateway: ${error.message}\n`);
    if (error instanceof UsageError) process.stderr.write(`\n${USAGE}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
