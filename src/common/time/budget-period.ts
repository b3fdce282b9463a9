export const BUDGET_PERIODS = ['day', 'month'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export interface PeriodWindow {
  /** Part of the counter key, so each period starts from zero: `2026-11-22` or `2026-11`. */
  id: string;
  /** Start of the next period, epoch ms. */
  endsAt: number;
}

/** The calendar period (UTC) that contains `now`: budgets renew at midnight UTC or on the 1st. */
export function budgetPeriodAt(period: BudgetPeriod, now: number): PeriodWindow {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const monthId = `${year}-${String(month + 1).padStart(2, '0')}`;
  if (period === 'month') return { id: monthId, endsAt: Date.UTC(year, month + 1, 1) };
  const day = date.getUTCDate();
  return {
    id: `${monthId}-${String(day).padStart(2, '0')}`,
    endsAt: Date.UTC(year, month, day + 1),
  };
}
