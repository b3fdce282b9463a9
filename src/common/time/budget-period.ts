import { GatewayException } from '../errors/gateway.exception';

/** 'total' never renews: a lifetime allowance (docs/spend.md). */
export const BUDGET_PERIODS = ['day', 'month', 'total'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** Shared between requests (budgetPeriodAt keeps the last one): never changed once made. */
export interface PeriodWindow {
  /** Part of the counter key, so each period starts from zero: `2026-11-22` or `2026-11`. */
  readonly id: string;
  /** Start of the next period, epoch ms. */
  readonly endsAt: number;
}

const TOTAL_ENDS_AT = 8_640_000_000_000_000;
const TOTAL_WINDOW: PeriodWindow = Object.freeze({ id: 'total', endsAt: TOTAL_ENDS_AT });
const lastWindows: Partial<
  Record<Exclude<BudgetPeriod, 'total'>, { startsAt: number; window: PeriodWindow }>
> = {};

/** The calendar period (UTC) that contains `now`: budgets renew at midnight UTC or on the 1st. */
export function budgetPeriodAt(period: BudgetPeriod, now: number): PeriodWindow {
  // The latest time a JavaScript Date can hold: the counter's window never ends.
  if (period === 'total') return TOTAL_WINDOW;
  // Every request with a budget asks, and the answer changes once a day or a month: the last
  // window of each period is kept while `now` is inside it.
  const last = lastWindows[period];
  if (last && now >= last.startsAt && now < last.window.endsAt) return last.window;
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const monthId = `${year}-${String(month + 1).padStart(2, '0')}`;
  let startsAt: number;
  let window: PeriodWindow;
  if (period === 'month') {
    startsAt = Date.UTC(year, month, 1);
    window = Object.freeze({ id: monthId, endsAt: Date.UTC(year, month + 1, 1) });
  } else {
    const day = date.getUTCDate();
    startsAt = Date.UTC(year, month, day);
    window = Object.freeze({
      id: `${monthId}-${String(day).padStart(2, '0')}`,
      endsAt: Date.UTC(year, month, day + 1),
    });
  }
  lastWindows[period] = { startsAt, window };
  return window;
}

/**
 * A key's or a team's budget settings: a period goes with an amount (tokens, dollars or both),
 * never alone, and an amount never without its period.
 */
export function assertBudget(
  tokenBudget: number | null,
  budgetUsd: string | null,
  budgetPeriod: BudgetPeriod | null,
): void {
  const hasAmount = tokenBudget !== null || budgetUsd !== null;
  if (hasAmount !== (budgetPeriod !== null)) {
    throw new GatewayException('invalid_parameter', {
      param: hasAmount ? 'budget_period' : 'token_budget',
      message:
        'budget_period is set together with token_budget and/or budget_usd (an amount per day, per month or in total), or all are left empty.',
    });
  }
}
