import { keyState, type CreatedVirtualKey, type VirtualKeyView } from './virtual-key.types';

/** A key as the admin API and the CLI show it: snake_case, never a hash, the secret only when new. */
export function presentKey(key: VirtualKeyView) {
  return {
    object: 'virtual_key' as const,
    id: key.id,
    name: key.name,
    key_prefix: key.keyPrefix,
    status: keyState(key),
    created_at: key.createdAt.toISOString(),
    updated_at: key.updatedAt.toISOString(),
    expires_at: key.expiresAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    rpm_limit: key.rpmLimit,
    tpm_limit: key.tpmLimit,
    token_budget: key.tokenBudget,
    budget_usd: key.budgetUsd,
    budget_period: key.budgetPeriod,
    team_id: key.teamId,
    allowed_models: key.allowedModels,
    previous_secret_expires_at: key.previousSecretExpiresAt?.toISOString() ?? null,
    owner_user_id: key.ownerUserId,
  };
}

export function presentCreatedKey({ key, secret }: CreatedVirtualKey) {
  return { ...presentKey(key), secret };
}
