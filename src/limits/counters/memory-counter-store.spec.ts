import { MemoryCounterStore } from './memory-counter-store';

describe('MemoryCounterStore', () => {
  let now: number;
  let store: MemoryCounterStore;

  beforeEach(() => {
    now = 1_000_000;
    store = new MemoryCounterStore(() => now);
  });

  it('opens a window with the first charge and reports the time left in it', async () => {
    const first = await store.consume([{ key: 'a', limit: 3, windowMs: 60_000 }], 1);
    expect(first).toEqual({
      allowed: true,
      charged: 1,
      refused: -1,
      backend: 'memory',
      counters: [{ used: 1, endsAt: 1_060_000, resetMs: 60_000 }],
    });
    now += 45_500;
    const second = await store.consume([{ key: 'a', limit: 3, windowMs: 60_000 }], 1);
    expect(second.counters[0]).toEqual({ used: 2, endsAt: 1_060_000, resetMs: 14_500 });
  });

  it('refuses without counting the refused charge, until the window ends', async () => {
    const spec = { key: 'a', limit: 2, windowMs: 60_000 };
    await store.consume([spec], 1);
    await store.consume([spec], 1);
    now += 10_000;
    expect(await store.consume([spec], 1)).toMatchObject({
      allowed: false,
      refused: 0,
      counters: [{ used: 2, resetMs: 50_000 }],
    });
    expect(await store.consume([spec], 1)).toMatchObject({
      allowed: false,
      counters: [{ used: 2 }],
    });
    now += 50_000;
    expect(await store.consume([spec], 1)).toMatchObject({
      allowed: true,
      counters: [{ used: 1, endsAt: 1_120_000 }],
    });
  });

  it('charges several counters all together or not at all', async () => {
    const roomy = { key: 'roomy', limit: 100, windowMs: 60_000 };
    const tight = { key: 'tight', limit: 10, endsAt: 2_000_000 };
    expect(await store.consume([roomy, tight], 8)).toMatchObject({
      allowed: true,
      counters: [{ used: 8 }, { used: 8, endsAt: 2_000_000 }],
    });
    expect(await store.consume([roomy, tight], 5)).toMatchObject({
      allowed: false,
      refused: 1,
      counters: [{ used: 8 }, { used: 8 }],
    });
    expect(await store.consume([roomy], 5)).toMatchObject({ counters: [{ used: 13 }] });
  });

  it('adjusts only the window it was given, never below zero and never refusing', async () => {
    const spec = { key: 'a', limit: 100, windowMs: 60_000 };
    const { counters } = await store.consume([spec], 50);
    const window = { key: 'a', endsAt: counters[0].endsAt };
    await store.adjust([window], 80);
    expect((await store.consume([spec], 0)).counters[0].used).toBe(130);
    await store.adjust([window], -500);
    expect((await store.consume([spec], 0)).counters[0].used).toBe(0);

    now += 60_000;
    await store.consume([spec], 5);
    // The old reservation's window is over; the new window is not touched.
    await store.adjust([window], -5);
    expect((await store.consume([spec], 0)).counters[0].used).toBe(5);
  });

  it('forgets ended windows so idle keys do not pile up', async () => {
    await store.consume([{ key: 'a', limit: 1, windowMs: 1_000 }], 1);
    await store.consume([{ key: 'b', limit: 1, windowMs: 120_000 }], 1);
    now += 61_000;
    await store.consume([{ key: 'c', limit: 1, windowMs: 1_000 }], 1);
    expect(store.size).toBe(2);
  });

  it('charges between amount and upTo, as far as every counter has room', async () => {
    const store = new MemoryCounterStore(() => 0);
    const a = { key: 'flex-a', limit: 100, windowMs: 60_000 };
    const b = { key: 'flex-b', limit: 30, windowMs: 60_000 };
    expect(await store.consume([a, b], 5, 50)).toMatchObject({ allowed: true, charged: 30 });
    expect(await store.consume([a, b], 1, 50)).toMatchObject({
      allowed: false,
      charged: 0,
      refused: 1,
    });
    expect(await store.consume([a], 5, 50)).toMatchObject({
      allowed: true,
      charged: 50,
      counters: [{ used: 80 }],
    });
  });
});
