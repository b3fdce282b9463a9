import { Injectable } from '@nestjs/common';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import type { BudgetPeriod } from '../common/time/budget-period';
import { budgetToCounterUnits } from '../common/money/price';
import type { TeamView } from '../teams/team.types';
import { AppConfig } from '../config/app-config';

/** A dollar budget in counter units (nano-dollars). */
export interface SpendBudget {
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

/**
 * A key's effective limits: its own settings first, the gateway defaults otherwise. 0 means none.
 * Resolved once per key or team view and kept with it: views are immutable snapshots (a change
 * makes a new one), the defaults are read once, and both the throttler and the token limits ask
 * on every request, so the dollar budget's decimal string is not parsed per request.
 */
@Injectable()
export class KeyLimitsResolver {
  private readonly requestsPerMinute: number;
  private readonly tokenBudget: number;
  private readonly budgetPeriod: BudgetPeriod;
  private readonly keys = new WeakMap<VirtualKeyView, KeyLimits>();
  private readonly teams = new WeakMap<TeamView, TeamLimits>();

  constructor(config: AppConfig) {
    this.requestsPerMinute = config.KEY_RPM_LIMIT;
    this.tokenBudget = config.KEY_TOKEN_BUDGET ?? 0;
    this.budgetPeriod = config.KEY_BUDGET_PERIOD;
  }

  forKey(key: VirtualKeyView): KeyLimits {
    let limits = this.keys.get(key);
    if (!limits) this.keys.set(key, (limits = this.resolveKey(key)));
    return limits;
  }

  forTeam(team: TeamView): TeamLimits {
    let limits = this.teams.get(team);
    if (!limits) this.teams.set(team, (limits = this.resolveTeam(team)));
    return limits;
  }

  private resolveKey(key: VirtualKeyView): KeyLimits {
    const budgetTokens = positive(key.tokenBudget ?? this.tokenBudget);
    const period = key.budgetPeriod ?? this.budgetPeriod;
    return {
      requestsPerMinute: positive(key.rpmLimit ?? this.requestsPerMinute),
      tokensPerMinute: positive(key.tpmLimit),
      budget: budgetTokens ? { tokens: budgetTokens, period } : null,
      ...(key.budgetUsd ? { spend: spendBudget(key.budgetUsd, period) } : {}),
    };
  }

  private resolveTeam(team: TeamView): TeamLimits {
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
  return units ? { units, period } : null;
}
