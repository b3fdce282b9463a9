import { FactoryProvider, Logger } from '@nestjs/common';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { CounterStore } from './counter-store';
import { FailoverCounterStore } from './failover-counter-store';
import { MemoryCounterStore } from './memory-counter-store';
import { RedisCounterStore } from './redis-counter-store';
import { AppConfig } from '../../config/app-config';
import { MetricsService } from '../../metrics/metrics.service';

/**
 * Memory counters without REDIS_URL; Redis counters with it, which fall back to memory or refuse
 * while Redis is down (LIMITS_ON_STORE_FAILURE). /metrics says which: gateway_counter_store_up.
 */
export const counterStoreProvider: FactoryProvider<CounterStore> = {
  provide: CounterStore,
  inject: [AppConfig, { token: MetricsService, optional: true }],
  useFactory: async (config: AppConfig, metrics?: MetricsService): Promise<CounterStore> => {
    const url = config.REDIS_URL;
    const logger = new Logger('RateLimits');
    if (!url) {
      logger.log(
        'REDIS_URL is not set: rate limits and budgets are counted in memory, per instance',
      );
      const memory = new MemoryCounterStore();
      metrics?.watchCounterStore(() => true);
      return memory;
    }
    const timeoutMs = config.REDIS_TIMEOUT_MS;
    // Loaded only when used: about 10 MiB of resident memory otherwise (docs/performance.md).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Redis } = require('ioredis') as typeof import('ioredis');
    const redis = new Redis(url, {
      // Fail a command at once while disconnected instead of queueing it until a reconnect: a
      // request must never wait for Redis to come back.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeoutMs,
      connectTimeout: timeoutMs,
      // On shutdown ioredis waits this long for a socket that is already gone (default 2 s).
      disconnectTimeout: timeoutMs,
      // Keep reconnecting for as long as it takes, at most a second apart, so recovery is quick.
      retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    });
    const store = new FailoverCounterStore(
      redis,
      new RedisCounterStore(redis, config.REDIS_KEY_PREFIX),
      new MemoryCounterStore(),
      Date.now,
      { policy: config.LIMITS_ON_STORE_FAILURE, logIntervalMs: config.ERROR_LOG_INTERVAL_MS },
    );
    metrics?.watchCounterStore(() => store.up);
    // Give the first connection a moment so the first requests are counted in Redis, but never
    // let a dead Redis hold up the boot.
    const settled = new AbortController();
    const options = { signal: settled.signal };
    await Promise.race([
      once(redis, 'ready', options),
      once(redis, 'error', options),
      sleep(timeoutMs * 2, undefined, options),
    ]).catch(() => undefined);
    settled.abort();
    if (redis.status === 'ready')
      logger.log('Rate limits and budgets are counted in Redis, shared by all instances');
    return store;
  },
};
