import { MemoryCounterStore } from '../limits/counters/memory-counter-store';
import { CounterThrottlerStorage } from './counter-throttler.storage';

describe('CounterThrottlerStorage', () => {
  let now: number;
  let storage: CounterThrottlerStorage;
  const hit = () => storage.increment('key-1', 60_000, 2, 60_000, 'key-requests');

  beforeEach(() => {
    now = 0;
    storage = new CounterThrottlerStorage(new MemoryCounterStore(() => now));
  });

  it('reports hits and the seconds left in the window, rounded up', async () => {
    expect(await hit()).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    now = 20_400;
    expect(await hit()).toEqual({
      totalHits: 2,
      timeToExpire: 40,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  });

  it('blocks until the window ends, not for a fixed blockDuration from the refusal', async () => {
    await hit();
    await hit();
    now = 58_200;
    expect(await hit()).toEqual({
      totalHits: 3,
      timeToExpire: 2,
      isBlocked: true,
      timeToBlockExpire: 2,
    });
    now = 60_000;
    expect(await hit()).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('keeps separate counts per tracker and per throttler name', async () => {
    await hit();
    await hit();
    expect((await storage.increment('key-2', 60_000, 2, 0, 'key-requests')).isBlocked).toBe(false);
    expect((await storage.increment('key-1', 10_000, 2, 0, 'admin')).isBlocked).toBe(false);
  });
});
