import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import type { SignInTransaction } from './oidc-client.service';

/** A sign-in must come back from the provider within this time. */
export const SIGN_IN_TRANSACTION_MS = 10 * 60_000;
/** Pending sign-ins kept at most; the oldest go first, so a flood cannot grow memory. */
const MAX_PENDING = 10_000;

/**
 * Sign-ins on their way through the identity provider, in this process's memory like the
 * sessions. The browser holds only a random id in a short-lived SameSite=Lax cookie, which the
 * provider's cross-site redirect back carries (the Strict session cookie would not be sent).
 * A transaction is taken once: a replayed callback finds nothing.
 */
@Injectable()
export class SignInTransactions {
  private readonly pending = new Map<string, SignInTransaction & { createdAt: number }>();

  /** Stores the transaction; the returned id goes into the cookie and is not kept. */
  begin(transaction: SignInTransaction): string {
    this.sweep();
    const id = randomBytes(32).toString('base64url');
    this.pending.set(hash(id), { ...transaction, createdAt: Date.now() });
    while (this.pending.size > MAX_PENDING)
      this.pending.delete(this.pending.keys().next().value as string);
    return id;
  }

  /** The transaction for a cookie value, removed; undefined when unknown, used or expired. */
  take(id: string | undefined): SignInTransaction | undefined {
    if (!id) return undefined;
    const key = hash(id);
    const found = this.pending.get(key);
    this.pending.delete(key);
    if (!found || Date.now() - found.createdAt >= SIGN_IN_TRANSACTION_MS) return undefined;
    const { createdAt: _createdAt, ...transaction } = found;
    return transaction;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, found] of this.pending)
      if (now - found.createdAt >= SIGN_IN_TRANSACTION_MS) this.pending.delete(key);
      else break; // insertion order is age order
  }
}

function hash(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}
