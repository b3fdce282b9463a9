import type { BudgetPeriod } from '../common/time/budget-period';

/** A team as the gateway sees it (docs/spend.md, "Teams"). */
export interface TeamView {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  /** US dollars per budgetPeriod as an exact decimal string; null means no dollar budget. */
  budgetUsd: string | null;
  /** Tokens per budgetPeriod; null means no token budget. */
  tokenBudget: number | null;
  budgetPeriod: BudgetPeriod | null;
  /** Public models every member key may use at most; empty means all. */
  allowedModels: string[];
}

/** Team settings as declared by an admin: absent leaves a field alone, null clears it. */
export interface TeamSettings {
  budgetUsd?: string | null;
  tokenBudget?: number | null;
  budgetPeriod?: BudgetPeriod | null;
  allowedModels?: string[];
}

export interface CreateTeamInput extends TeamSettings {
  name: string;
}

export interface UpdateTeamInput extends TeamSettings {
  name?: string;
}
