import { LRUCache } from 'lru-cache';

/** What a secret hash resolved to; `keyId` null means no key has that secret. */
export interface KeyLookup<T> {
  keyId: string | null;
  value: T;
}

/**
 * A TTL cache of key lookups by secret hash that can forget one key at once, whichever of its
 * hashes (current, previous) are cached, plus every negative answer. Concurrent misses for one
 * hash share a single load. A load that overlaps forgetKey() or clear() is returned to its callers but not
 * stored, so a change committed while a lookup was in flight is never cached as the old state.
 */
export class KeyLookupCache<T> {
  private readonly entries: LRUCache<string, KeyLookup<T>>;
  /**
   * Negative answers live apart, in a smaller cache: a flood of made-up keys then evicts other
   * made-up keys, never the real ones that keep Postgres off the request path.
   */
  private readonly unknown: LRUCache<string, KeyLookup<T>>;
  /** Cached hashes per key id; negative answers are filed under NO_KEY. */
  private readonly hashesByKey = new Map<string, Set<string>>();
  private inflight = new Map<string, Promise<KeyLookup<T>>>();
  private generation = 0;

  constructor(
    private readonly load: (secretHash: string) => Promise<KeyLookup<T>>,
    options: { ttlMs: number; max: number },
  ) {
    this.entries = new LRUCache<string, KeyLookup<T>>({
      max: options.max,
      ttl: Math.max(options.ttlMs, 1),
      dispose: (lookup, secretHash) => this.unindex(lookup.keyId, secretHash),
    });
    this.unknown = new LRUCache<string, KeyLookup<T>>({ max: Math.max(1, Math.ceil(options.max / 5)), ttl: Math.max(options.ttlMs, 1) });
  }

  get(secretHash: string): Promise<KeyLookup<T>> {
    const cached = this.entries.get(secretHash) ?? this.unknown.get(secretHash);
    if (cached) return Promise.resolve(cached);
    let pending = this.inflight.get(secretHash);
    if (!pending) {
      const generation = this.generation;
      const inflight = this.inflight;
      pending = this.load(secretHash)
        .then((lookup) => {
          if (generation === this.generation) this.store(secretHash, lookup);
          return lookup;
        })
        .finally(() => inflight.delete(secretHash));
      inflight.set(secretHash, pending);
    }
    return pending;
  }

  /** Drops every cached answer about one key, and all negative answers (a seed may add a secret). */
  forgetKey(keyId: string): void {
    this.invalidateInflight();
    for (const secretHash of [...(this.hashesByKey.get(keyId) ?? [])]) this.entries.delete(secretHash);
    this.unknown.clear();
  }

  clear(): void {
    this.invalidateInflight();
    this.entries.clear();
    this.unknown.clear();
  }

  private invalidateInflight(): void {
    this.generation++;
    // Callers arriving after this start a fresh load instead of joining one that may be stale.
    this.inflight = new Map();
  }

  private store(secretHash: string, lookup: KeyLookup<T>): void {
    if (lookup.keyId === null) {
      this.unknown.set(secretHash, lookup);
      return;
    }
    this.entries.set(secretHash, lookup);
    let hashes = this.hashesByKey.get(lookup.keyId);
    if (!hashes) this.hashesByKey.set(lookup.keyId, (hashes = new Set()));
    hashes.add(secretHash);
  }

  private unindex(keyId: string | null, secretHash: string): void {
    if (keyId === null) return;
    const hashes = this.hashesByKey.get(keyId);
    hashes?.delete(secretHash);
    if (hashes?.size === 0) this.hashesByKey.delete(keyId);
  }
}
