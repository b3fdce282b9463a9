import type { INestApplicationContext } from '@nestjs/common';
import { runMigrations } from '../database/migration-runner';
import { MIGRATIONS_DIR } from '../database/database-connection';
import { presentCreatedKey, presentKey } from '../keys/virtual-key.presenter';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { BudgetPeriod, keyState } from '../keys/virtual-key.types';
import { TeamsService } from '../teams/teams.service';
import { readSeedKeys } from './seed-keys';
import { AppConfig } from '../config/app-config';

export interface CliOutput {
  out(text: string): void;
}

export interface KeyCreateOptions {
  name: string;
  json: boolean;
  rpm?: number;
  tpm?: number;
  models?: string[];
  expires?: Date;
  budget?: number;
  budgetUsd?: string;
  budgetPeriod?: BudgetPeriod;
  /** A team id or name. */
  team?: string;
}

export async function createKey(
  app: INestApplicationContext,
  options: KeyCreateOptions,
  io: CliOutput,
): Promise<void> {
  const teamId = options.team ? (await app.get(TeamsService).get(options.team)).id : null;
  const { key, secret } = await app.get(VirtualKeyService).create({
    name: options.name,
    rpmLimit: options.rpm ?? null,
    tpmLimit: options.tpm ?? null,
    allowedModels: options.models ?? [],
    expiresAt: options.expires ?? null,
    tokenBudget: options.budget ?? null,
    budgetUsd: options.budgetUsd ?? null,
    budgetPeriod: options.budgetPeriod ?? null,
    teamId,
  });
  if (options.json) {
    io.out(JSON.stringify(presentCreatedKey({ key, secret })));
    return;
  }
  io.out(`Created key "${key.name}" (id ${key.id}).`);
  io.out(`Secret (shown once, store it now): ${secret}`);
}

export async function listKeys(
  app: INestApplicationContext,
  json: boolean,
  io: CliOutput,
): Promise<void> {
  const keys = await app.get(VirtualKeyService).list();
  if (json) {
    io.out(JSON.stringify(keys.map(presentKey)));
    return;
  }
  if (keys.length === 0) {
    io.out('No keys.');
    return;
  }
  io.out(['ID', 'NAME', 'PREFIX', 'STATE', 'RPM', 'MODELS', 'CREATED'].join('\t'));
  for (const key of keys) {
    const row = [
      key.id,
      key.name,
      `${key.keyPrefix}…`,
      keyState(key),
      key.rpmLimit ?? 'default',
      key.allowedModels.join(',') || 'all',
      key.createdAt.toISOString(),
    ];
    io.out(row.join('\t'));
  }
}

export async function revokeKey(
  app: INestApplicationContext,
  idOrName: string,
  io: CliOutput,
): Promise<void> {
  const key = await app.get(VirtualKeyService).revoke(idOrName);
  io.out(`Revoked key "${key.name}" (id ${key.id}) at ${key.revokedAt?.toISOString()}.`);
}

export async function rotateKey(
  app: INestApplicationContext,
  idOrName: string,
  options: { graceSeconds: number; json: boolean },
  io: CliOutput,
): Promise<void> {
  const { key, secret } = await app
    .get(VirtualKeyService)
    .rotate(idOrName, { graceSeconds: options.graceSeconds });
  if (options.json) {
    io.out(JSON.stringify(presentCreatedKey({ key, secret })));
    return;
  }
  const until = key.previousSecretExpiresAt
    ? `until ${key.previousSecretExpiresAt.toISOString()}`
    : 'no longer';
  io.out(`Rotated key "${key.name}" (id ${key.id}); the old secret works ${until}.`);
  io.out(`New secret (shown once, store it now): ${secret}`);
}

export async function seedKeys(app: INestApplicationContext, io: CliOutput): Promise<void> {
  const declared = readSeedKeys(process.env);
  const keys = app.get(VirtualKeyService);
  for (const input of declared) {
    const key = await keys.seed(input);
    io.out(`Seeded key "${key.name}" (id ${key.id}).`);
  }
  io.out(`${declared.length} key(s) seeded.`);
}

export async function migrate(app: INestApplicationContext, io: CliOutput): Promise<void> {
  const url = app.get(AppConfig).DATABASE_URL;
  if (!url) {
    io.out('DATABASE_URL is not set: the embedded database was migrated when it was opened.');
    return;
  }
  const report = await runMigrations(url, MIGRATIONS_DIR, (message) => io.out(message));
  io.out(
    `Database schema up to date (${report.applied.length} applied, ${report.alreadyApplied} already applied).`,
  );
}
