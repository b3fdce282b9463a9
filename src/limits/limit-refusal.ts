import { GatewayException } from '../common/errors/gateway.exception';
import { formatDecimal } from '../common/money/decimal';
import { COUNTER_DECIMALS } from '../common/money/price';
import type { BudgetPeriod } from '../common/time/budget-period';
import type { CounterSpec, CounterState } from './counters/counter-store';
import { formatDuration, retryAfterSeconds } from './rate-limit-headers';

/** A counter one request charges: a budget (tokens), a dollar budget, or the minute's tokens. */
export type Charge =
  | { kind: 'budget'; owner: 'key' | 'team'; spec: CounterSpec; period: BudgetPeriod }
  | { kind: 'spend'; owner: 'key' | 'team'; spec: CounterSpec; period: BudgetPeriod }
  | { kind: 'tokens'; spec: CounterSpec };

function usd(units: number): string {
  return `$${formatDecimal(BigInt(units), COUNTER_DECIMALS)}`;
}

/** The 429 for the charge that had no room: whose limit, what is left and when it renews. */
export function refusal(
  charge: Charge,
  state: CounterState,
  amount: number,
  headers: Record<string, string>,
): GatewayException {
  const limit = charge.spec.limit;
  const renews = formatDuration(state.resetMs);
  const retryAfter = String(retryAfterSeconds(state.resetMs));
  if (charge.kind === 'budget' || charge.kind === 'spend') {
    const owner = charge.owner === 'key' ? 'this API key' : "this API key's team";
    const when = charge.period === 'total' ? 'in total' : `this ${charge.period}`;
    const renewal = charge.period === 'total' ? 'It does not renew' : `It renews in ${renews}`;
    const spend = charge.kind === 'spend';
    const what = spend ? 'dollar budget' : 'token budget';
    const of = (part: number) =>
      spend ? `${usd(part)} of ${usd(limit)}` : `${part} of ${limit} tokens`;
    const reserves = spend
      ? `${usd(amount)} (the prompt estimate at the input price + max_tokens at the output price)`
      : `${amount} (prompt estimate + max_tokens)`;
    const message =
      state.used >= limit
        ? `The ${what} of ${owner} is spent: ${of(state.used)} ${when}. ${renewal}.`
        : `The ${what} of ${owner} has ${of(limit - state.used)} left ${when}, and this request ` +
          `reserves ${reserves}. Lower max_tokens${charge.period === 'total' ? '' : `, or wait for the budget to renew in ${renews}`}.`;
    // x-should-retry: false stops the official clients' automatic retries, which cannot succeed.
    return new GatewayException(
      charge.kind === 'spend' ? 'spend_budget_exceeded' : 'budget_exceeded',
      {
        message,
        headers: Object.assign(
          {},
          headers,
          charge.period === 'total' ? {} : { 'retry-after': retryAfter },
          { 'x-should-retry': 'false' },
        ),
      },
    );
  }
  if (amount > limit) {
    return new GatewayException('token_rate_limit_exceeded', {
      message:
        `This request reserves ${amount} tokens (prompt estimate + max_tokens), more than this API key's limit of ` +
        `${limit} tokens per minute. Lower max_tokens.`,
      headers: Object.assign({}, headers, { 'x-should-retry': 'false' }),
    });
  }
  return new GatewayException('token_rate_limit_exceeded', {
    message:
      `Rate limit reached for tokens on this API key: limit ${limit} / min, used ${state.used}, requested ${amount}. ` +
      `Please try again in ${renews}.`,
    headers: Object.assign({}, headers, { 'retry-after': retryAfter }),
  });
}
