import type { VirtualKeyView } from './virtual-key.types';

/** A key with no settings of its own, for unit tests; `overrides` sets what a test is about. */
export function aVirtualKey(overrides: Partial<VirtualKeyView> = {}): VirtualKeyView {
  return {
    id: 'k1',
    name: 'k1',
    keyPrefix: 'gk-test123',
    createdAt: new Date(),
    updatedAt: new Date(),
    expiresAt: null,
    revokedAt: null,
    rpmLimit: null,
    tpmLimit: null,
    tokenBudget: null,
    budgetUsd: null,
    budgetPeriod: null,
    teamId: null,
    allowedModels: [],
    previousSecretExpiresAt: null,
    ownerUserId: null,
    ...overrides,
  };
}
