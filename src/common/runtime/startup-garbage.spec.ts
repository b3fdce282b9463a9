import { getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { collectStartupGarbage } from './startup-garbage';

/** The heap's size while about 40 MB of arrays lived that nothing references after this. */
function heapUsedWithUnreachableArrays(): number {
  const arrays = Array.from({ length: 200 }, () => new Array<number>(25_000).fill(1.5));
  expect(arrays).toHaveLength(200);
  return getHeapStatistics().used_heap_size;
}

describe('collectStartupGarbage', () => {
  it('collects unreachable objects at once, without a gc() on the global object', () => {
    const withGarbage = heapUsedWithUnreachableArrays();

    collectStartupGarbage();

    const freed = withGarbage - getHeapStatistics().used_heap_size;
    expect(freed).toBeGreaterThan(30 * 1024 * 1024);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });

  it('leaves later contexts without gc() as well', () => {
    collectStartupGarbage();
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});
