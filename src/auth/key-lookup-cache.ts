import { LRUCache } from 'lru-cache';
import { performance } from 'node:perf_hooks';

/** What a secret hash resolved to; `keyId` null means no key has that secret. */
export interface KeyLookup<T> {
  keyId: string | null;
  value: T;
}

interface Entry<T> {
  lookup: KeyLookup<T>;
  loadedAt: number;
}

/**
 * A TTL cache of key lookups by secret hash that can forget one key at once, whichever of its
 * hashes (current, previous) are cached, plus every negative answer. Concurrent misses for one
 * hash share a single load. A load that overlaps forgetKey() or clear() is returned to its callers but not
 * stored, so a change committed while a lookup was in flight is never cached as the old state.
 *
 * An answer older than ttlMs is reloaded, and the reload's answer is given. When the reload fails
 * (`load` should bound its own wait), the old answer is given instead, for up to staleMs past
 * ttlMs; and while loads keep failing, stale answers are given at once without waiting for a
 * database that is down. Changes announced through forgetKey() or clear() drop an answer
 * outright, stale or not.
 */
export class KeyLookupCache<T> {
  private readonly entries: LRUCache<string, Entry<T>>;
  /**
   * Negative answers live apart, in a smaller cache: a flood of made-up keys then evicts other
   * made-up keys, never the real ones that keep Postgres off the request path.
   */
  private readonly unknown: LRUCache<string, Entry<T>>;
  /** Cached hashes per key id; negative answers are filed under NO_KEY. */
  private readonly hashesByKey = new Map<string, Set<string>>();
  private inflight = new Map<string, Promise<KeyLookup<T>>>();
  private generation = 0;
  private readonly ttlMs: number;
  /** The last load failed: the database is down, so stale answers need not wait for it. */
  private failing = false;

  constructor(
    private readonly load: (secretHash: string) => Promise<KeyLookup<T>>,
    options: { ttlMs: number; max: number; staleMs?: number },
  ) {
    this.ttlMs = Math.max(options.ttlMs, 1);
    // The LRU keeps an entry through its stale period; get() tells fresh from stale.
    const keptMs = this.ttlMs + Math.max(options.staleMs ?? 0, 0);
    // lru-cache's default `ttlResolution` (1 ms) keeps the clock it read for a millisecond with a
    // timer per reading: under load, up to a setTimeout per millisecond per cache and its callback
    // a millisecond later, about one per request at this VM's rates
    // (node_modules/lru-cache/dist/commonjs/index.js, `getNow`). Read the clock each time
    // instead: `performance.now()` is cheaper than the timer, and get() reads it anyway.
    this.entries = new LRUCache<string, Entry<T>>({
      max: options.max,
      ttl: keptMs,
      ttlResolution: 0,
      dispose: (entry, secretHash) => this.unindex(entry.lookup.keyId, secretHash),
    });
    this.unknown = new LRUCache<string, Entry<T>>({
      max: Math.max(1, Math.ceil(options.max / 5)),
      ttl: keptMs,
      ttlResolution: 0,
    });
  }

  get(secretHash: string): Promise<KeyLookup<T>> {
    const cached = this.entries.get(secretHash) ?? this.unknown.get(secretHash);
    if (cached && performance.now() - cached.loadedAt < this.ttlMs)
      return Promise.resolve(cached.lookup);
    const loading = this.loadShared(secretHash);
    if (!cached) return loading;
    if (this.failing) {
      loading.catch(() => undefined);
      return Promise.resolve(cached.lookup);
    }
    return loading.catch(() => cached.lookup);
  }

  private loadShared(secretHash: string): Promise<KeyLookup<T>> {
    let pending = this.inflight.get(secretHash);
    if (!pending) {
      const generation = this.generation;
      const inflight = this.inflight;
      pending = this.load(secretHash)
        .then(
          (lookup) => {
            this.failing = false;
            if (generation === this.generation) this.store(secretHash, lookup);
            return lookup;
          },
          (error: unknown) => {
            this.failing = true;
            throw error;
          },
        )
        .finally(() => inflight.delete(secretHash));
      inflight.set(secretHash, pending);
    }
    return pending;
  }

  /** Drops every cached answer about one key, and all negative answers (a seed may add a secret). */
  forgetKey(keyId: string): void {
    this.invalidateInflight();
    for (const secretHash of [...(this.hashesByKey.get(keyId) ?? [])])
      this.entries.delete(secretHash);
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
    const entry = { lookup, loadedAt: performance.now() };
    // A reload may turn a known secret into an unknown one or back: the old answer must go.
    if (lookup.keyId === null) {
      this.entries.delete(secretHash);
      this.unknown.set(secretHash, entry);
      return;
    }
    this.unknown.delete(secretHash);
    this.entries.set(secretHash, entry);
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
