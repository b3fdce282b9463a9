import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import type { BudgetPeriod } from '../common/time/budget-period';
import { budgetToCounterUnits } from '../common/money/price';
import type { TeamView } from '../teams/team.types';

/** A dollar budget: `usd` as set, `units` the same amount in counter units (nano-dollars). */
export interface SpendBudget {
  usd: string;
  units: number;
  period: BudgetPeriod;
}

export interface KeyLimits {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  budget: { tokens: number; period: BudgetPeriod } | null;
  /** Dollar budget (docs/spend.md); absent or null: none. */
  spend?: SpendBudget | null;
}

/** A team's budgets. Teams have no gateway-wide defaults: only what the team declares. */
export interface TeamLimits {
  budget: { tokens: number; period: BudgetPeriod } | null;
  spend: SpendBudget | null;
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
    const period = key.budgetPeriod ?? this.budgetPeriod;
    return {
      requestsPerMinute: positive(key.rpmLimit ?? this.requestsPerMinute),
      tokensPerMinute: positive(key.tpmLimit),
      budget: budgetTokens ? { tokens: budgetTokens, period } : null,
      ...(key.budgetUsd ? { spend: spendBudget(key.budgetUsd, period) } : {}),
    };
  }

  forTeam(team: TeamView): TeamLimits {
    const period = team.budgetPeriod ?? this.budgetPeriod;
    const tokens = positive(team.tokenBudget);
    return {
      budget: tokens ? { tokens, period } : null,
      spend: team.budgetUsd ? spendBudget(team.budgetUsd, period) : null,
    };
  }
}

function positive(value: number | null | undefined): number | null {
  return value && value > 0 ? value : null;
}

function spendBudget(usd: string, period: BudgetPeriod): SpendBudget | null {
  const units = budgetToCounterUnits(usd);
  return units ? { usd, units, period } : null;
}
