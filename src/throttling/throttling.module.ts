import { ExecutionContext, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Request } from 'express';
import { CounterStore } from '../limits/counters/counter-store';
import { KeyLimitsResolver } from '../limits/key-limits.resolver';
import { LimitsModule } from '../limits/limits.module';
import { CounterThrottlerStorage } from './counter-throttler.storage';
import { KEY_REQUESTS_THROTTLER, KEY_REQUESTS_WINDOW_MS } from './throttler-names';

/**
 * The throttler for the whole app (ThrottlerModule is global). Its storage is the gateway's
 * counter store, so every named throttler is shared across instances once REDIS_URL is set.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      imports: [LimitsModule],
      inject: [CounterStore, KeyLimitsResolver],
      useFactory: (counters: CounterStore, limits: KeyLimitsResolver) => ({
        throttlers: [
          {
            name: KEY_REQUESTS_THROTTLER,
            ttl: KEY_REQUESTS_WINDOW_MS,
            // Routes without a virtual key (health, the admin API) are never counted here, whichever
            // ThrottlerGuard runs on them.
            skipIf: (context: ExecutionContext) => !virtualKeyOf(context),
            // The key's own rpmLimit, else KEY_RPM_LIMIT; 0 (no limit) makes KeyThrottlerGuard step aside.
            limit: (context: ExecutionContext) =>
              limits.forKey(virtualKeyOf(context)!).requestsPerMinute ?? 0,
          },
        ],
        storage: new CounterThrottlerStorage(counters),
      }),
    }),
  ],
})
export class ThrottlingModule {}

function virtualKeyOf(context: ExecutionContext) {
  return context.switchToHttp().getRequest<Request>().virtualKey;
}
