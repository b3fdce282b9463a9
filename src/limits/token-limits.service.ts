import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { GatewayException } from '../common/errors/gateway.exception';
import type { SetResponseHeaders } from '../common/http/response-headers.decorator';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import type { TokenUsage } from '../providers/provider-adapter.interface';
import { budgetPeriodAt } from '../common/time/budget-period';
import { budgetCounterKey, tokensPerMinuteCounterKey } from './counters/counter-keys';
import {
  CounterBackend,
  CounterSpec,
  CounterState,
  CounterStore,
  CounterWindow,
} from './counters/counter-store';
import { KeyLimits, KeyLimitsResolver } from './key-limits.resolver';
import { formatDuration, rateLimitHeaders, retryAfterSeconds } from './rate-limit-headers';
import { ReservableRequest, reservationTokens } from './token-reservation';

export const TOKEN_WINDOW_MS = 60_000;

/** Tokens held for one request between its start and its settlement. */
export interface TokenReservation {
  readonly amount: number;
  readonly windows: CounterWindow[];
  readonly backend: CounterBackend;
  settled: boolean;
}

const NOTHING_RESERVED: TokenReservation = Object.freeze({
  amount: 0,
  windows: [],
  backend: 'memory',
  settled: true,
});

type Charge =
  | { kind: 'budget'; spec: CounterSpec; limits: NonNullable<KeyLimits['budget']> }
  | { kind: 'tokens'; spec: CounterSpec };

/**
 * Token limits per key: a tokens-per-minute window and a budget per calendar period. A request
 * reserves its worst case before the upstream call (so concurrent requests cannot overspend
 * together) and settles to its real usage afterwards.
 */
@Injectable()
export class TokenLimitsService {
  private readonly logger = new Logger('RateLimits');
  private readonly defaultMaxTokens: number;

  constructor(
    @Inject(CounterStore) private readonly counters: CounterStore,
    private readonly limits: KeyLimitsResolver,
    config: ConfigService,
  ) {
    this.defaultMaxTokens = config.get<number>('DEFAULT_MAX_TOKENS_RESERVATION') ?? 1024;
  }

  /**
   * Throws a 429 GatewayException when the budget or the minute's tokens have no room; otherwise
   * hands the token headers to `setHeaders` and returns what it holds.
   */
  async reserve(
    key: VirtualKeyView,
    request: ReservableRequest,
    setHeaders: SetResponseHeaders,
  ): Promise<TokenReservation> {
    const charges = this.chargesFor(key);
    if (charges.length === 0) return NOTHING_RESERVED;
    const wanted = reservationTokens(request, this.defaultMaxTokens);
    const result = await this.counters.consume(
      charges.map((charge) => charge.spec),
      wanted.min,
      wanted.max,
    );
    const amount = result.allowed ? result.charged : wanted.min;
    const tokensIndex = charges.findIndex((charge) => charge.kind === 'tokens');
    const headers =
      tokensIndex < 0
        ? {}
        : rateLimitHeaders(
            'tokens',
            charges[tokensIndex].spec.limit,
            result.counters[tokensIndex].used,
            result.counters[tokensIndex].resetMs,
          );
    if (!result.allowed)
      throw refusal(charges[result.refused], result.counters[result.refused], amount, headers);
    setHeaders(headers);
    return {
      amount,
      windows: charges.map((charge, index) => ({
        key: charge.spec.key,
        endsAt: result.counters[index].endsAt,
      })),
      backend: result.backend,
      settled: false,
    };
  }

  /** Replaces the reservation by what the request really used. Never throws; runs once. */
  async settle(reservation: TokenReservation, usage: TokenUsage): Promise<void> {
    if (reservation.settled) return;
    reservation.settled = true;
    const delta = usage.promptTokens + usage.completionTokens - reservation.amount;
    if (delta === 0) return;
    // Settlement runs in `finally` blocks; a failure here must not replace the request's outcome.
    await this.counters
      .adjust(reservation.windows, delta, reservation.backend)
      .catch((error: Error) => {
        this.logger.warn(`could not settle a token reservation: ${error.message}`);
      });
  }

  // The budget comes first: when it is spent, that is the answer, not a retry in a few seconds.
  private chargesFor(key: VirtualKeyView): Charge[] {
    const limits = this.limits.forKey(key);
    const charges: Charge[] = [];
    if (limits.budget) {
      const period = budgetPeriodAt(limits.budget.period, Date.now());
      charges.push({
        kind: 'budget',
        spec: {
          key: budgetCounterKey(key.id, period.id),
          limit: limits.budget.tokens,
          endsAt: period.endsAt,
        },
        limits: limits.budget,
      });
    }
    if (limits.tokensPerMinute) {
      charges.push({
        kind: 'tokens',
        spec: {
          key: tokensPerMinuteCounterKey(key.id),
          limit: limits.tokensPerMinute,
          windowMs: TOKEN_WINDOW_MS,
        },
      });
    }
    return charges;
  }
}

function refusal(
  charge: Charge,
  state: CounterState,
  amount: number,
  headers: Record<string, string>,
): GatewayException {
  const limit = charge.spec.limit;
  const renews = formatDuration(state.resetMs);
  const retryAfter = String(retryAfterSeconds(state.resetMs));
  if (charge.kind === 'budget') {
    const period = charge.limits.period;
    const message =
      state.used >= limit
        ? `The token budget of this API key is spent: ${state.used} of ${limit} tokens this ${period}. It renews in ${renews}.`
        : `The token budget of this API key has ${limit - state.used} of ${limit} tokens left this ${period}, and this request ` +
          `reserves ${amount} (prompt estimate + max_tokens). Lower max_tokens, or wait for the budget to renew in ${renews}.`;
    // x-should-retry: false stops the official clients' automatic retries, which cannot succeed.
    return new GatewayException('budget_exceeded', {
      message,
      headers: { ...headers, 'retry-after': retryAfter, 'x-should-retry': 'false' },
    });
  }
  if (amount > limit) {
    return new GatewayException('token_rate_limit_exceeded', {
      message:
        `This request reserves ${amount} tokens (prompt estimate + max_tokens), more than this API key's limit of ` +
        `${limit} tokens per minute. Lower max_tokens.`,
      headers: { ...headers, 'x-should-retry': 'false' },
    });
  }
  return new GatewayException('token_rate_limit_exceeded', {
    message:
      `Rate limit reached for tokens on this API key: limit ${limit} / min, used ${state.used}, requested ${amount}. ` +
      `Please try again in ${renews}.`,
    headers: { ...headers, 'retry-after': retryAfter },
  });
}
