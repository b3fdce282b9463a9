import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { CliModule } from './cli.module';
import { BUDGET_PERIODS, BudgetPeriod } from '../keys/virtual-key.types';
import { createKey, listKeys, migrate, revokeKey, rotateKey, seedKeys } from './commands';

const USAGE = `Usage: gateway <command>

  keys create --name NAME [--rpm N] [--tpm N] [--budget N --budget-period day|month]
              [--models a,b] [--expires ISO-DATE] [--json]
  keys list [--json]
  keys revoke <id-or-name>
  keys rotate <id-or-name> [--grace-seconds N] [--json]   (default grace: 3600 s)
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
      'grace-seconds': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [group, command, argument] = positionals;
  const known = ['keys create', 'keys list', 'keys revoke', 'keys rotate', 'db migrate', 'db seed'];
  if (values.help || !known.includes(`${group} ${command}`)) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (group === 'keys' && command === 'create' && !values.name)
    throw new UsageError('keys create needs --name NAME');
  if (group === 'keys' && (command === 'revoke' || command === 'rotate') && !argument) {
    throw new UsageError(`keys ${command} needs the id or name of a key`);
  }
  const budgetPeriod = values['budget-period'];
  if (budgetPeriod !== undefined && !BUDGET_PERIODS.includes(budgetPeriod as BudgetPeriod)) {
    throw new UsageError(`--budget-period must be one of ${BUDGET_PERIODS.join(', ')}`);
  }
  if ((values.budget === undefined) !== (budgetPeriod === undefined))
    throw new UsageError('--budget and --budget-period go together');

  const app = await NestFactory.createApplicationContext(
    CliModule.forCommand({ allowUnmigrated: `${group} ${command}` === 'db migrate' }),
    {
      logger: false,
      abortOnError: false,
    },
  );
  try {
    switch (`${group} ${command}`) {
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
            budgetPeriod: budgetPeriod as BudgetPeriod | undefined,
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
