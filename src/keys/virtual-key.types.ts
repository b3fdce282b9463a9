import type { BudgetPeriod } from '../common/time/budget-period';
export { BUDGET_PERIODS, type BudgetPeriod } from '../common/time/budget-period';

/** A virtual key as the rest of the gateway sees it: never with its secret or hash. */
export interface VirtualKeyView {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
  /** Tokens per budgetPeriod; null means no budget. */
  tokenBudget: number | null;
  /** US dollars per budgetPeriod, as an exact decimal string; null means no dollar budget. */
  budgetUsd: string | null;
  budgetPeriod: BudgetPeriod | null;
  allowedModels: string[];
  /** The team whose budgets and allow-list apply too (docs/spend.md); null: none. */
  teamId: string | null;
  /** Until when the secret replaced by the last rotation still works; null when none does. */
  previousSecretExpiresAt: Date | null;
  /** The signed-in person who created the key (docs/sso.md); null for the admin key and the CLI. */
  ownerUserId: string | null;
}

/** The settings an admin declares for a key (create, update, seed). */
export interface VirtualKeySettings {
  expiresAt?: Date | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  tokenBudget?: number | null;
  budgetUsd?: string | null;
  budgetPeriod?: BudgetPeriod | null;
  allowedModels?: string[];
  teamId?: string | null;
}

export interface CreateVirtualKeyInput extends VirtualKeySettings {
  name: string;
  /** The creating user (admin_users.id), who may rotate and revoke it as a `member`. */
  ownerUserId?: string | null;
}

/** A partial update: absent fields are left alone, null clears a field. */
export interface UpdateVirtualKeyInput extends VirtualKeySettings {
  name?: string;
}

export interface RotateVirtualKeyInput {
  /** How long the replaced secret keeps working; 0 ends it at once. */
  graceSeconds: number;
}

/** Returned at creation and rotation: the only times the secret exists outside the client. */
export interface CreatedVirtualKey {
  key: VirtualKeyView;
  secret: string;
}

export type KeyState = 'active' | 'revoked' | 'expired';

export function keyState(
  key: Pick<VirtualKeyView, 'revokedAt' | 'expiresAt'>,
  now = new Date(),
): KeyState {
  if (key.revokedAt && key.revokedAt <= now) return 'revoked';
  if (key.expiresAt && key.expiresAt <= now) return 'expired';
  return 'active';
}
