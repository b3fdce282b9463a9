import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { withTimeout } from '../common/async/with-timeout';
import { GatewayException } from '../common/errors/gateway.exception';
import { databaseTimeouts } from '../database/database-timeouts';
import type { VirtualKey } from '../generated/prisma/client';
import { VirtualKeyEvents } from '../keys/virtual-key-events';
import { digestsEqual, hashSecret, SECRET_FORMAT } from '../keys/virtual-key-secret';
import { VirtualKeyRepository } from '../keys/virtual-key.repository';
import { toView } from '../keys/virtual-key.service';
import { keyState, VirtualKeyView } from '../keys/virtual-key.types';
import { KeyLookup, KeyLookupCache } from './key-lookup-cache';
import { AppConfig } from '../config/app-config';

/** A key found by one of its secrets: the current one, or the one a rotation replaced. */
interface FoundKey {
  key: VirtualKeyView;
  matchedHash: string;
  /** Set when the secret is the rotated-out one: it works until then. */
  graceEndsAt: Date | null;
  rotatedOut: boolean;
}

/**
 * Turns a bearer secret into an active key. Lookups are cached by hash for KEY_CACHE_TTL_MS so
 * Postgres is not on every request. Key changes made anywhere drop the cached entries at once:
 * in-process through VirtualKeyEvents, from other instances through KeyChangeListener.
 */
@Injectable()
export class VirtualKeyVerifier implements OnModuleDestroy {
  private readonly cache: KeyLookupCache<FoundKey | null>;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly repository: VirtualKeyRepository,
    config: AppConfig,
    events: VirtualKeyEvents,
  ) {
    // A key lookup is one indexed read: a database that takes longer than DB_PING_TIMEOUT_MS is
    // down for this request (503, or the stale answer of a key seen within KEY_CACHE_STALE_MS).
    const lookupTimeoutMs = databaseTimeouts(config).pingMs;
    this.cache = new KeyLookupCache(
      (secretHash) =>
        withTimeout(
          this.load(secretHash),
          lookupTimeoutMs,
          `key lookup: no answer within ${lookupTimeoutMs} ms`,
        ),
      {
        ttlMs: config.KEY_CACHE_TTL_MS,
        staleMs: config.KEY_CACHE_STALE_MS,
        max: 50_000,
      },
    );
    this.unsubscribe = events.subscribe((keyId) => this.forgetKey(keyId));
  }

  async verify(authorization: string | undefined): Promise<VirtualKeyView> {
    if (!authorization) throw new GatewayException('missing_api_key');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) {
      throw new GatewayException('invalid_api_key', {
        message: 'Malformed Authorization header: expected "Bearer <key>".',
      });
    }
    return this.verifySecret(match[1]);
  }

  /** A key sent bare, as Anthropic's clients send `x-api-key`. */
  async verifySecret(secret: string): Promise<VirtualKeyView> {
    if (!SECRET_FORMAT.test(secret)) throw new GatewayException('invalid_api_key');
    const secretHash = hashSecret(secret);
    const found = (await this.lookup(secretHash)).value;
    if (!found || !digestsEqual(found.matchedHash, secretHash))
      throw new GatewayException('invalid_api_key');
    const now = new Date();
    const state = keyState(found.key, now);
    if (state === 'revoked') throw new GatewayException('key_revoked');
    if (state === 'expired') throw new GatewayException('key_expired');
    if (found.rotatedOut && !(found.graceEndsAt && found.graceEndsAt > now))
      throw new GatewayException('key_rotated');
    return found.key;
  }

  /** Drops everything cached about one key (revocation, rotation, update, seed). */
  forgetKey(keyId: string): void {
    this.cache.forgetKey(keyId);
  }

  /** Drops the whole cache, e.g. after missing change notifications for a while. */
  forget(): void {
    this.cache.clear();
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }

  /** A database that cannot answer is an outage (503), not a bug in the gateway (500). */
  private async lookup(secretHash: string): Promise<KeyLookup<FoundKey | null>> {
    try {
      return await this.cache.get(secretHash);
    } catch (error) {
      throw new GatewayException('service_unavailable', {
        message: 'The gateway cannot check API keys right now. Retry later.',
        headers: { 'retry-after': '1' },
        cause: error,
      });
    }
  }

  private async load(secretHash: string): Promise<KeyLookup<FoundKey | null>> {
    const rows = await this.repository.findByCurrentOrPreviousSecretHash(secretHash);
    const current = rows.find((row) => row.secretHash === secretHash);
    if (current) return found(current, current.secretHash, false);
    // A secret replaced by a rotation, still accepted during its grace period.
    const rotated = rows.find((row) => row.previousSecretHash === secretHash);
    if (rotated?.previousSecretHash) return found(rotated, rotated.previousSecretHash, true);
    return { keyId: null, value: null };
  }
}

function found(row: VirtualKey, matchedHash: string, rotatedOut: boolean): KeyLookup<FoundKey> {
  return {
    keyId: row.id,
    value: {
      key: toView(row),
      matchedHash,
      rotatedOut,
      graceEndsAt: rotatedOut ? row.previousSecretExpiresAt : null,
    },
  };
}
