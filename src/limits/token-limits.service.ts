import { BeforeApplicationShutdown, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { SetResponseHeaders } from '../common/http/response-headers';
import { picoToCounterUnits } from '../common/money/price';
import {
  promptTokenCounterFor,
  type PromptTokenCounter,
} from '../common/tokens/prompt-token-counter';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { VirtualKeyView } from '../keys/virtual-key.types';
import type { TokenUsage } from '../providers/provider-adapter.interface';
import type { TeamView } from '../teams/team.types';
import { budgetPeriodAt, type BudgetPeriod } from '../common/time/budget-period';
import {
  budgetCounterKey,
  spendCounterKey,
  teamBudgetCounterKey,
  teamSpendCounterKey,
  tokensPerMinuteCounterKey,
} from './counters/counter-keys';
import { CounterBackend, CounterStore, CounterWindow } from './counters/counter-store';
import { KeyLimitsResolver } from './key-limits.resolver';
import { rateLimitHeaders } from './rate-limit-headers';
import { refusal, type Charge } from './limit-refusal';
import {
  ReservableRequest,
  estimateRequestPromptTokens,
  reservationCost,
  reservationTokens,
  type PricedCandidate,
  type Range,
} from './token-reservation';
import { AppConfig } from '../config/app-config';

export const TOKEN_WINDOW_MS = 60_000;

type Unit = 'tokens' | 'usd';

/** What one group of counters holds for a request: tokens, or nano-dollars (`usd`). */
export interface Hold {
  readonly unit: Unit;
  readonly amount: number;
  readonly windows: CounterWindow[];
  readonly backend: CounterBackend;
}

/** Tokens and dollars held for one request between its start and its settlement. */
export interface TokenReservation {
  readonly holds: Hold[];
  settled: boolean;
}

/** What the limits need besides the key: its team and the candidate deployments' prices. */
export interface SpendContext {
  team?: TeamView | null;
  /** The deployments the request may be routed to: price (null: unpriced) and completion cap. */
  candidates?: PricedCandidate[];
}

const NOTHING_RESERVED: TokenReservation = Object.freeze({ holds: [], settled: true });

type Owner = 'key' | 'team';

/** Counters charged by one atomic consume(): one owner (one hash tag), one unit. */
interface Step {
  unit: Unit;
  charges: Charge[];
  wanted: Range;
}

/**
 * Token and dollar limits per key and per team: a tokens-per-minute window and budgets per
 * calendar period (docs/keys-and-limits.md, docs/spend.md). A request reserves its worst case
 * before the upstream call (so concurrent requests cannot overspend together) and settles to its
 * real usage and cost afterwards. Each owner's counters of one unit are charged by one atomic
 * store call; when a later one refuses, the earlier ones are given back, so a refused request
 * holds nothing.
 */
@Injectable()
export class TokenLimitsService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('RateLimits');
  private readonly defaultMaxTokens: number;
  /** Settlements sent by settleInBackground() and not answered yet; shutdown waits for them. */
  private readonly settling = new Set<Promise<void>>();
  /** The distinct prompt counters of a model's deployments; a config reload makes new arrays. */
  private readonly tokenizers = new WeakMap<DeploymentConfig[], PromptTokenCounter[]>();

  constructor(
    @Inject(CounterStore) private readonly counters: CounterStore,
    private readonly limits: KeyLimitsResolver,
    config: AppConfig,
    @Optional() private readonly gatewayConfig?: GatewayConfigService,
  ) {
    this.defaultMaxTokens = config.DEFAULT_MAX_TOKENS_RESERVATION;
  }

  /**
   * Throws a 429 GatewayException when a budget or the minute's tokens have no room; otherwise
   * hands the token headers to `setHeaders` and returns what it holds.
   */
  async reserve(
    key: VirtualKeyView,
    request: ReservableRequest,
    setHeaders: SetResponseHeaders,
    context: SpendContext = {},
  ): Promise<TokenReservation> {
    const steps = this.stepsFor(key, request, context);
    if (steps.length === 0) return NOTHING_RESERVED;
    const holds: Hold[] = [];
    let headers: Record<string, string> = {};
    for (const step of steps) {
      const result = await this.counters
        .consume(
          step.charges.map((charge) => charge.spec),
          step.wanted.min,
          step.wanted.max,
        )
        .catch(async (error: unknown) => {
          // The store failed part-way (LIMITS_ON_STORE_FAILURE=closed): hold nothing.
          await this.release(holds);
          throw error;
        });
      const tokensIndex = step.charges.findIndex((charge) => charge.kind === 'tokens');
      if (tokensIndex >= 0)
        headers = rateLimitHeaders(
          'tokens',
          step.charges[tokensIndex].spec.limit,
          result.counters[tokensIndex].used,
          result.counters[tokensIndex].resetMs,
        );
      if (!result.allowed) {
        await this.release(holds);
        throw refusal(
          step.charges[result.refused],
          result.counters[result.refused],
          step.wanted.min,
          headers,
        );
      }
      holds.push({
        unit: step.unit,
        amount: result.charged,
        windows: step.charges.map((charge, index) => ({
          key: charge.spec.key,
          endsAt: result.counters[index].endsAt,
        })),
        backend: result.backend,
      });
    }
    setHeaders(headers);
    return { holds, settled: false };
  }

  /**
   * Replaces the reservation by what the request really used and cost (pico-dollars at the
   * answering deployment's price, worked out once by the caller; none: nothing is charged to
   * dollar budgets). Never throws; runs once.
   */
  async settle(
    reservation: TokenReservation,
    usage: TokenUsage,
    cost?: bigint | null,
  ): Promise<void> {
    if (reservation.settled) return;
    reservation.settled = true;
    const tokens = usage.promptTokens + usage.completionTokens;
    const spent = cost ? picoToCounterUnits(cost) : 0;
    await Promise.all(
      reservation.holds.map((hold) =>
        this.adjust(hold, (hold.unit === 'tokens' ? tokens : spent) - hold.amount),
      ),
    );
  }

  /**
   * settle() without holding up the answer: with Redis counters it is a round trip the client
   * would otherwise wait for. The settlement is handed to the counter store before this returns;
   * the Redis store sends it at the end of the turn, ahead of that turn's charges, and one
   * connection's commands run in order, so this instance's next check of the same counters counts
   * it already. A graceful shutdown waits for it (beforeApplicationShutdown), after the
   * running requests have drained and before the counters' connection closes.
   */
  settleInBackground(reservation: TokenReservation, usage: TokenUsage, cost?: bigint | null): void {
    if (reservation.settled) return;
    const settling: Promise<void> = this.settle(reservation, usage, cost).finally(() =>
      this.settling.delete(settling),
    );
    this.settling.add(settling);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.settling);
  }

  private async release(holds: Hold[]): Promise<void> {
    await Promise.all(holds.map((hold) => this.adjust(hold, -hold.amount)));
  }

  private async adjust(hold: Hold, delta: number): Promise<void> {
    if (delta === 0) return;
    // Settlement runs in `finally` blocks; a failure here must not replace the request's outcome.
    await this.counters.adjust(hold.windows, delta, hold.backend).catch((error: Error) => {
      this.logger.warn(`could not settle a ${hold.unit} reservation: ${error.message}`);
    });
  }

  // Budgets come first: when one is spent, that is the answer, not a retry in a few seconds.
  private stepsFor(key: VirtualKeyView, request: ReservableRequest, context: SpendContext): Step[] {
    const now = Date.now();
    const limits = this.limits.forKey(key);
    const team = context.team ? this.limits.forTeam(context.team) : null;
    if (!limits.budget && !limits.tokensPerMinute && !limits.spend && !team?.budget && !team?.spend)
      return [];
    // Both holds start from the same prompt estimate: one pass over the messages per tokenizer.
    const prompt =
      request.promptTokens ?? estimateRequestPromptTokens(request, this.countersFor(request.model));
    const tokens = reservationTokens(request, this.defaultMaxTokens, prompt);
    const steps: Step[] = [];
    const keyTokens: Charge[] = [];
    if (limits.budget)
      keyTokens.push(
        periodCharge('budget', 'key', key.id, limits.budget.tokens, limits.budget.period, now),
      );
    if (limits.tokensPerMinute)
      keyTokens.push({
        kind: 'tokens',
        spec: {
          key: tokensPerMinuteCounterKey(key.id),
          limit: limits.tokensPerMinute,
          windowMs: TOKEN_WINDOW_MS,
          keyLimit: true,
        },
      });
    if (keyTokens.length > 0) steps.push({ unit: 'tokens', charges: keyTokens, wanted: tokens });
    if (team?.budget && context.team)
      steps.push({
        unit: 'tokens',
        charges: [
          periodCharge(
            'budget',
            'team',
            context.team.id,
            team.budget.tokens,
            team.budget.period,
            now,
          ),
        ],
        wanted: tokens,
      });
    const spends: Charge[][] = [];
    if (limits.spend)
      spends.push([
        periodCharge('spend', 'key', key.id, limits.spend.units, limits.spend.period, now),
      ]);
    if (team?.spend && context.team)
      spends.push([
        periodCharge('spend', 'team', context.team.id, team.spend.units, team.spend.period, now),
      ]);
    if (spends.length > 0) {
      // Dollars are held only when some candidate deployment has a price: an unpriced one costs
      // nothing known (docs/spend.md, "Dollar budgets").
      const cost = reservationCost(
        request,
        this.defaultMaxTokens,
        context.candidates ?? [],
        prompt,
      );
      if (cost)
        for (const charges of spends)
          steps.push({
            unit: 'usd',
            charges,
            wanted: { min: picoToCounterUnits(cost.min), max: picoToCounterUnits(cost.max) },
          });
    }
    return steps;
  }

  /**
   * One counter per model family among the deployments the request may reach (failover may land
   * on any); the byte bound when the model is unknown here (it is refused later, or the caller
   * did not say).
   */
  private countersFor(model: string | undefined): PromptTokenCounter[] {
    const deployments = model ? this.gatewayConfig?.deploymentsFor(model) : undefined;
    if (!deployments || deployments.length === 0) return [];
    let counters = this.tokenizers.get(deployments);
    if (!counters) {
      counters = [
        ...new Set(
          deployments.map((deployment) =>
            promptTokenCounterFor({
              provider: deployment.provider,
              model: deployment.upstreamModel ?? deployment.publicModel,
            }),
          ),
        ),
      ];
      this.tokenizers.set(deployments, counters);
    }
    return counters;
  }
}

const PERIOD_COUNTER_KEYS = {
  budget: { key: budgetCounterKey, team: teamBudgetCounterKey },
  spend: { key: spendCounterKey, team: teamSpendCounterKey },
} as const;

/** A budget counter for the current period: tokens (`budget`) or nano-dollars (`spend`). */
function periodCharge(
  kind: 'budget' | 'spend',
  owner: Owner,
  id: string,
  limit: number,
  period: BudgetPeriod,
  now: number,
): Charge {
  const window = budgetPeriodAt(period, now);
  const key = PERIOD_COUNTER_KEYS[kind][owner](id, window.id);
  return { kind, owner, period, spec: { key, limit, endsAt: window.endsAt, keyLimit: true } };
}
