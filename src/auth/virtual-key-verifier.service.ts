import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { LRUCache } from 'lru-cache';
import { GatewayException } from '../common/errors/gateway.exception';
import { digestsEqual, hashSecret, SECRET_FORMAT } from '../keys/virtual-key-secret';
import { VirtualKeyRepository } from '../keys/virtual-key.repository';
import { toView } from '../keys/virtual-key.service';
import { keyState, VirtualKeyView } from '../keys/virtual-key.types';

interface CachedLookup {
  key: VirtualKeyView | null;
  secretHash: string | null;
}

/**
 * Turns a bearer secret into an active key. Lookups are cached by hash for KEY_CACHE_TTL_MS so
 * Postgres is not on every request; concurrent misses for one key share a single query.
 */
@Injectable()
export class VirtualKeyVerifier {
  private readonly cache: LRUCache<string, CachedLookup>;

  constructor(
    private readonly repository: VirtualKeyRepository,
    config: ConfigService,
  ) {
    const ttl = config.get<number>('KEY_CACHE_TTL_MS') ?? 10_000;
    this.cache = new LRUCache<string, CachedLookup>({
      max: 50_000,
      ttl: Math.max(ttl, 1),
      fetchMethod: async (secretHash) => {
        const row = await this.repository.findBySecretHash(secretHash);
        return { key: row ? toView(row) : null, secretHash: row?.secretHash ?? null };
      },
    });
  }

  async verify(authorization: string | undefined): Promise<VirtualKeyView> {
    if (!authorization) throw new GatewayException('missing_api_key');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) {
      throw new GatewayException('invalid_api_key', { message: 'Malformed Authorization header: expected "Bearer <key>".' });
    }
    const secret = match[1];
    if (!SECRET_FORMAT.test(secret)) throw new GatewayException('invalid_api_key');
    const secretHash = hashSecret(secret);
    const found = await this.cache.fetch(secretHash);
    if (!found?.key || !found.secretHash || !digestsEqual(found.secretHash, secretHash)) {
      throw new GatewayException('invalid_api_key');
    }
    const state = keyState(found.key);
    if (state === 'revoked') throw new GatewayException('key_revoked');
    if (state === 'expired') throw new GatewayException('key_expired');
    return found.key;
  }

  /** Drops a cached key at once (revocation, rotation, update). */
  forget(secretHash?: string): void {
    if (secretHash) this.cache.delete(secretHash);
    else this.cache.clear();
  }
}
