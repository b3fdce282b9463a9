import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { isBudgetUsd, MAX_BUDGET_USD } from '../common/money/price';
import type { SeedKeyInput } from '../keys/virtual-key.service';
import { BUDGET_PERIODS, BudgetPeriod } from '../keys/virtual-key.types';

interface DeclaredKey {
  name?: unknown;
  key?: unknown;
  key_sha256?: unknown;
  rpm_limit?: unknown;
  tpm_limit?: unknown;
  allowed_models?: unknown;
  expires_at?: unknown;
  token_budget?: unknown;
  budget_usd?: unknown;
  budget_period?: unknown;
}

/**
 * Admin-declared keys, from GATEWAY_SEED_KEYS (a JSON array) and/or the JSON or YAML file named
 * by GATEWAY_SEED_FILE. Each entry: name, and key or key_sha256; optional rpm_limit, tpm_limit,
 * token_budget and/or budget_usd (a decimal string) with budget_period, allowed_models,
 * expires_at. Teams are not seeded: a seed leaves a key's team as it is.
 */
export function readSeedKeys(env: NodeJS.ProcessEnv): SeedKeyInput[] {
  const declared: unknown[] = [];
  if (env.GATEWAY_SEED_KEYS) {
    declared.push(
      ...asArray(
        read('GATEWAY_SEED_KEYS', () => JSON.parse(env.GATEWAY_SEED_KEYS!) as unknown),
        'GATEWAY_SEED_KEYS',
      ),
    );
  }
  const file = env.GATEWAY_SEED_FILE;
  if (file)
    declared.push(
      ...asArray(
        read(`GATEWAY_SEED_FILE ${file}`, () => parse(readFileSync(file, 'utf8')) as unknown),
        `GATEWAY_SEED_FILE ${file}`,
      ),
    );
  return declared.map((entry, index) => toSeedInput(entry as DeclaredKey, index));
}

/** A parse or read failure names the variable (and file) it came from. */
function read(source: string, load: () => unknown): unknown {
  try {
    return load();
  } catch (error) {
    throw new Error(`${source}: ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}`, {
      cause: error,
    });
  }
}

function asArray(value: unknown, source: string): unknown[] {
  const list = Array.isArray(value) ? value : (value as { keys?: unknown })?.keys;
  if (!Array.isArray(list))
    throw new Error(`${source}: expected a list of keys (or {keys: [...]})`);
  return list;
}

function toSeedInput(entry: DeclaredKey, index: number): SeedKeyInput {
  const where = `seed key #${index + 1}`;
  if (typeof entry?.name !== 'string' || entry.name.length === 0)
    throw new Error(`${where}: "name" is required`);
  const optionalInt = (value: unknown, field: string, min = 1) => {
    if (value === undefined || value === null) return null;
    if (!Number.isInteger(value) || (value as number) < min)
      throw new Error(`${where}: "${field}" must be an integer of ${min} or more`);
    return value as number;
  };
  const expiresAt =
    entry.expires_at === undefined || entry.expires_at === null
      ? null
      : new Date(String(entry.expires_at));
  if (expiresAt && Number.isNaN(expiresAt.getTime()))
    throw new Error(`${where}: "expires_at" is not a date`);
  if (
    entry.allowed_models !== undefined &&
    !(
      Array.isArray(entry.allowed_models) &&
      entry.allowed_models.every((m) => typeof m === 'string')
    )
  ) {
    throw new Error(`${where}: "allowed_models" must be a list of model names`);
  }
  const tokenBudget = optionalInt(entry.token_budget, 'token_budget');
  const budgetPeriod = entry.budget_period ?? null;
  if (budgetPeriod !== null && !BUDGET_PERIODS.includes(budgetPeriod as BudgetPeriod)) {
    throw new Error(`${where}: "budget_period" must be one of ${BUDGET_PERIODS.join(', ')}`);
  }
  const budgetUsd = entry.budget_usd ?? null;
  if (budgetUsd !== null && !isBudgetUsd(budgetUsd)) {
    throw new Error(
      `${where}: "budget_usd" must be a decimal string of US dollars above 0 and at most ${MAX_BUDGET_USD}, with at most 6 decimal places`,
    );
  }
  if ((tokenBudget === null && budgetUsd === null) !== (budgetPeriod === null)) {
    throw new Error(
      `${where}: "${budgetUsd === null ? 'token_budget' : 'budget_usd'}" and "budget_period" go together`,
    );
  }
  return {
    name: entry.name,
    tokenBudget,
    budgetUsd: budgetUsd as string | null,
    budgetPeriod: budgetPeriod as BudgetPeriod | null,
    secret: typeof entry.key === 'string' ? entry.key : undefined,
    secretSha256: typeof entry.key_sha256 === 'string' ? entry.key_sha256 : undefined,
    rpmLimit: optionalInt(entry.rpm_limit, 'rpm_limit', 0),
    tpmLimit: optionalInt(entry.tpm_limit, 'tpm_limit', 0),
    allowedModels: (entry.allowed_models as string[] | undefined) ?? [],
    expiresAt,
  };
}
