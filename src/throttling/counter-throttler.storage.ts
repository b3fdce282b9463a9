import type { ThrottlerStorage } from '@nestjs/throttler';
import { requestCounterKey } from '../limits/counters/counter-keys';
import type { CounterStore } from '../limits/counters/counter-store';
import { retryAfterSeconds } from '../limits/rate-limit-headers';
import { KEY_REQUESTS_THROTTLER } from './throttler-names';

// The record type is not exported from the package index.
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The throttler's storage, backed by the gateway's counters (Redis or memory), so request limits
 * and token limits share one store, one window rule and one Redis failure policy.
 *
 * Window rule: a fixed window that starts with a tracker's first request and lasts `ttl`.
 * Refused requests are not counted and there is no extra block (`blockDuration` is ignored): the
 * window's end is exactly when the next request is allowed, and that is what Retry-After says.
 */
export class CounterThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly counters: CounterStore) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const result = await this.counters.consume(
      [
        {
          key: requestCounterKey(throttlerName, key),
          limit,
          windowMs: ttl,
          // A virtual key's rpm_limit follows LIMITS_ON_STORE_FAILURE.
          keyLimit: throttlerName === KEY_REQUESTS_THROTTLER,
        },
      ],
      1,
    );
    const [window] = result.counters;
    const secondsLeft = retryAfterSeconds(window.resetMs);
    return {
      // As the built-in storage does, a refused request counts as one hit over the limit.
      totalHits: result.allowed ? window.used : window.used + 1,
      timeToExpire: secondsLeft,
      isBlocked: !result.allowed,
      timeToBlockExpire: result.allowed ? 0 : secondsLeft,
    };
  }
}
