import type { VirtualKey } from '../generated/prisma/client';
import { presentKey } from './virtual-key.presenter';
import type { BudgetPeriod, VirtualKeyView } from './virtual-key.types';

/** A key row as the rest of the gateway sees it: never with its secret or hash. */
export function toView(key: VirtualKey): VirtualKeyView {
  return {
    id: key.id,
    name: key.name,
    keyPrefix: key.keyPrefix,
    createdAt: key.createdAt,
    updatedAt: key.updatedAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    rpmLimit: key.rpmLimit,
    tpmLimit: key.tpmLimit,
    tokenBudget: key.tokenBudget,
    // Decimal(20,6) read back as a plain decimal string: "25.5", never a float.
    budgetUsd: key.budgetUsd === null ? null : key.budgetUsd.toFixed(),
    teamId: key.teamId,
    // The database's CHECK constraint admits only these values.
    budgetPeriod: key.budgetPeriod as BudgetPeriod | null,
    allowedModels: key.allowedModels,
    previousSecretExpiresAt: key.previousSecretExpiresAt,
    ownerUserId: key.ownerUserId,
  };
}

/** A key as its audit rows record it: as the API shows it, without updated_at. */
export function auditSnapshot(key: VirtualKey): Record<string, unknown> {
  const { updated_at: _updated, ...snapshot } = presentKey(toView(key));
  return snapshot;
}
