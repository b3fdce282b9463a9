import { LogThrottle } from './log-throttle';

describe('LogThrottle', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('admits the first line of a kind, counts the rest of the interval, then reports the count once', () => {
    const summaries: [string, number, string][] = [];
    const throttle = new LogThrottle(10_000, (kind, count, latest) =>
      summaries.push([kind, count, latest]),
    );

    expect(throttle.admit('service_unavailable', 'r1')).toBe(true);
    expect([2, 3, 4].map((n) => throttle.admit('service_unavailable', `r${n}`))).toEqual([
      false,
      false,
      false,
    ]);
    // Another kind has its own window.
    expect(throttle.admit('other', 'x1')).toBe(true);
    expect(summaries).toEqual([]);

    jest.advanceTimersByTime(10_000);
    expect(summaries).toEqual([['service_unavailable', 3, 'r4']]);
    // A new interval starts with a line of its own.
    expect(throttle.admit('service_unavailable', 'r5')).toBe(true);
  });

  it('reports what is held back on flush, and admits everything with interval 0', () => {
    const summaries: number[] = [];
    const throttle = new LogThrottle(10_000, (_kind, count) => summaries.push(count));
    throttle.admit('a', '1');
    throttle.admit('a', '2');
    throttle.flush();
    expect(summaries).toEqual([1]);

    const off = new LogThrottle(0, () => undefined);
    expect([off.admit('a', '1'), off.admit('a', '2')]).toEqual([true, true]);
  });
});
