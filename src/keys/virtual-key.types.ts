/** A virtual key as the rest of the gateway sees it: never with its secret or hash. */
export interface VirtualKeyView {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
  allowedModels: string[];
}

export interface CreateVirtualKeyInput {
  name: string;
  expiresAt?: Date | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  allowedModels?: string[];
}

/** Returned once, at creation: the only time the secret exists outside the client. */
export interface CreatedVirtualKey {
  key: VirtualKeyView;
  secret: string;
}

export type KeyState = 'active' | 'revoked' | 'expired';

export function keyState(key: Pick<VirtualKeyView, 'revokedAt' | 'expiresAt'>, now = new Date()): KeyState {
  if (key.revokedAt && key.revokedAt <= now) return 'revoked';
  if (key.expiresAt && key.expiresAt <= now) return 'expired';
  return 'active';
}
