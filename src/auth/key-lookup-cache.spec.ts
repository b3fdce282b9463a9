import { KeyLookup, KeyLookupCache } from './key-lookup-cache';

type Row = { keyId: string | null; version: number };

/** A fake database of hash -> key, counting loads and able to hold them open. */
function fakeStore() {
  const rows = new Map<string, Row>();
  const gates: Array<() => void> = [];
  let loads = 0;
  let held = false;
  const load = async (hash: string): Promise<KeyLookup<Row>> => {
    loads++;
    const snapshot = rows.get(hash) ?? { keyId: null, version: 0 };
    if (held) await new Promise<void>((resolve) => gates.push(resolve));
    return { keyId: snapshot.keyId, value: snapshot };
  };
  return {
    rows,
    load,
    get loads() {
      return loads;
    },
    hold: () => (held = true),
    /** Lets held loads finish, newest first: the worst order for a stale one. */
    release: async () => {
      held = false;
      for (const open of gates.splice(0).reverse()) {
        open();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

describe('KeyLookupCache', () => {
  it('keeps real keys cached while made-up keys flood the negative answers', async () => {
    const store = fakeStore();
    store.rows.set('real', { keyId: 'k1', version: 1 });
    const cache = new KeyLookupCache(store.load, { ttlMs: 60_000, max: 5 });
    await cache.get('real');
    for (let i = 0; i < 50; i++) await cache.get(`made-up-${i}`);
    const loads = store.loads;
    expect((await cache.get('real')).keyId).toBe('k1');
    expect(store.loads).toBe(loads);
  });

  it('answers repeated lookups from the cache and shares one load between concurrent misses', async () => {
    const store = fakeStore();
    store.rows.set('h1', { keyId: 'k1', version: 1 });
    const cache = new KeyLookupCache(store.load, { ttlMs: 60_000, max: 100 });
    const [a, b] = await Promise.all([cache.get('h1'), cache.get('h1')]);
    await cache.get('h1');
    expect(a.value.version).toBe(1);
    expect(b).toBe(a);
    expect(store.loads).toBe(1);
  });

  it('forgetKey drops every hash cached for that key and every negative answer, nothing else', async () => {
    const store = fakeStore();
    store.rows.set('current', { keyId: 'k1', version: 1 });
    store.rows.set('previous', { keyId: 'k1', version: 1 });
    store.rows.set('other', { keyId: 'k2', version: 1 });
    const cache = new KeyLookupCache(store.load, { ttlMs: 60_000, max: 100 });
    for (const hash of ['current', 'previous', 'other', 'unknown']) await cache.get(hash);
    expect(store.loads).toBe(4);

    store.rows.set('current', { keyId: 'k1', version: 2 });
    store.rows.set('unknown', { keyId: 'k3', version: 1 }); // e.g. a seed declared this secret
    cache.forgetKey('k1');

    expect((await cache.get('current')).value.version).toBe(2);
    await cache.get('previous');
    expect((await cache.get('unknown')).keyId).toBe('k3');
    await cache.get('other');
    expect(store.loads).toBe(4 + 3); // 'other' stayed cached
  });

  it('does not cache a load that overlapped a forget, and later callers do not join it', async () => {
    const store = fakeStore();
    store.rows.set('h1', { keyId: 'k1', version: 1 });
    const cache = new KeyLookupCache(store.load, { ttlMs: 60_000, max: 100 });
    store.hold();
    const stale = cache.get('h1'); // reads version 1, then waits
    await Promise.resolve();
    store.rows.set('h1', { keyId: 'k1', version: 2 }); // the change commits...
    cache.forgetKey('k1'); // ...and is announced while the read is in flight
    const fresh = cache.get('h1');
    await store.release();
    expect((await stale).value.version).toBe(1);
    expect((await fresh).value.version).toBe(2);
    expect((await cache.get('h1')).value.version).toBe(2);
    expect(store.loads).toBe(2);
  });

  it('arms no timer to answer from the cache, for a key or for a made-up one', async () => {
    const store = fakeStore();
    store.rows.set('h1', { keyId: 'k1', version: 1 });
    const cache = new KeyLookupCache(store.load, { ttlMs: 60_000, max: 100 });
    await cache.get('h1');
    await cache.get('made-up');
    const timers = jest.spyOn(global, 'setTimeout');
    try {
      for (let i = 0; i < 3; i++) {
        expect((await cache.get('h1')).keyId).toBe('k1');
        expect((await cache.get('made-up')).keyId).toBeNull();
        // Past lru-cache's default 1 ms clock resolution, where it would arm a new timer.
        await new Promise((resolve) => setImmediate(resolve));
        const until = performance.now() + 2;
        while (performance.now() < until);
      }
      expect(timers).not.toHaveBeenCalled();
      expect(store.loads).toBe(2);
    } finally {
      timers.mockRestore();
    }
  });

  it('expires entries after the TTL', async () => {
    const store = fakeStore();
    store.rows.set('h1', { keyId: 'k1', version: 1 });
    const cache = new KeyLookupCache(store.load, { ttlMs: 20, max: 100 });
    await cache.get('h1');
    store.rows.set('h1', { keyId: 'k1', version: 2 });
    expect((await cache.get('h1')).value.version).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect((await cache.get('h1')).value.version).toBe(2);
  });

  it('reloads a stale entry, but answers with it while reloads fail, up to staleMs', async () => {
    const store = fakeStore();
    store.rows.set('h1', { keyId: 'k1', version: 1 });
    let down = false;
    let loads = 0;
    const load = (hash: string) => (
      loads++,
      down ? Promise.reject(new Error('database down')) : store.load(hash)
    );
    const cache = new KeyLookupCache(load, { ttlMs: 20, staleMs: 80, max: 100 });
    await cache.get('h1');
    await new Promise((resolve) => setTimeout(resolve, 30));

    // Healthy database: past the TTL the reload's answer counts, as without staleMs.
    store.rows.set('h1', { keyId: 'k1', version: 2 });
    expect((await cache.get('h1')).value.version).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 30));

    down = true;
    // Stale and the reload fails: the old answer.
    expect((await cache.get('h1')).value.version).toBe(2);
    // Still failing: the old answer at once, the reload runs behind it.
    const before = loads;
    expect((await cache.get('h1')).value.version).toBe(2);
    expect(loads).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    // Past ttlMs + staleMs: nothing left to answer with.
    await expect(cache.get('h1')).rejects.toThrow('database down');
  });

  it('clear() forgets everything', async () => {
    const store = fakeStore();
    store.rows.set('h1', { keyId: 'k1', version: 1 });
    const cache = new KeyLookupCache(store.load, { ttlMs: 60_000, max: 100 });
    await cache.get('h1');
    cache.clear();
    await cache.get('h1');
    expect(store.loads).toBe(2);
  });
});
