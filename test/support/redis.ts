import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A Redis key prefix of its own for one test file, so runs (and files) never see each other's
 * counters, and a cleanup that deletes exactly those keys.
 */
export function testRedisNamespace(): { prefix: string; redis: Redis; cleanup(): Promise<void> } {
  const prefix = `test:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  return {
    prefix,
    redis,
    async cleanup() {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      redis.disconnect();
    },
  };
}
