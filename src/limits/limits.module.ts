import { Module } from '@nestjs/common';
import { counterStoreProvider } from './counters/counter-store.provider';
import { CounterStore } from './counters/counter-store';
import { KeyLimitsResolver } from './key-limits.resolver';
import { TokenLimitsService } from './token-limits.service';

/** Per-key limit settings and the counters behind them (Redis when configured, memory otherwise). */
@Module({
  providers: [counterStoreProvider, KeyLimitsResolver, TokenLimitsService],
  exports: [CounterStore, KeyLimitsResolver, TokenLimitsService],
})
export class LimitsModule {}
