import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import type { BudgetPeriod } from '../common/time/budget-period';

export interface KeyLimits {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  budget: { tokens: number; period: BudgetPeriod } | null;
}

/** A key's effective limits: its own settings first, the gateway defaults otherwise. 0 means none. */
@Injectable()
export class KeyLimitsResolver {
  private readonly requestsPerMinute: number;
  private readonly tokenBudget: number;
  private readonly budgetPeriod: BudgetPeriod;

  constructor(config: ConfigService) {
    this.requestsPerMinute = config.get<number>('KEY_RPM_LIMIT') ?? 100;
    this.tokenBudget = config.get<number>('KEY_TOKEN_BUDGET') ?? 0;
    this.budgetPeriod = config.get<BudgetPeriod>('KEY_BUDGET_PERIOD') ?? 'month';
  }

  forKey(key: VirtualKeyView): KeyLimits {
    const budgetTokens = positive(key.tokenBudget ?? this.tokenBudget);
    return {
      requestsPerMinute: positive(key.rpmLimit ?? this.requestsPerMinute),
      tokensPerMinute: positive(key.tpmLimit),
      budget: budgetTokens
        ? { tokens: budgetTokens, period: key.budgetPeriod ?? this.budgetPeriod }
        : null,
    };
  }
}

function positive(value: number | null | undefined): number | null {
  return value && value > 0 ? value : null;
}
