import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { isAlive, runPid } from './run-scope';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Deletes every key that starts with `pattern`'s prefix (SCAN, then DEL in batches). */
async function deleteMatching(redis: Redis, pattern: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    if (keys.length > 0) deleted += await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  return deleted;
}

/**
 * A Redis key prefix of its own for one test file (`test:<run pid>-<hex>:`), so runs (and files)
 * never see each other's counters, and a cleanup that deletes exactly those keys.
 */
export function testRedisNamespace(): { prefix: string; redis: Redis; cleanup(): Promise<void> } {
  const prefix = `test:${runPid()}-${randomBytes(4).toString('hex')}:`;
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  return {
    prefix,
    redis,
    async cleanup() {
      await deleteMatching(redis, `${prefix}*`);
      redis.disconnect();
    },
  };
}

/** Deletes the keys of test runs that have died (testRedisNamespace's prefixes). */
export async function deleteKeysOfDeadRuns(): Promise<number> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    const pids = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', 'test:*', 'COUNT', 1000);
      for (const key of keys) pids.add(/^test:(\d+)-/.exec(key)?.[1] ?? '');
      cursor = next;
    } while (cursor !== '0');
    let deleted = 0;
    for (const pid of pids)
      if (pid && !isAlive(Number(pid))) deleted += await deleteMatching(redis, `test:${pid}-*`);
    return deleted;
  } finally {
    redis.disconnect();
  }
}
