import { loadAppConfig } from '../config/app-config';
import { GatewayException } from '../common/errors/gateway.exception';
import { costOf, toPrice } from '../common/money/price';
import { aVirtualKey } from '../keys/virtual-key.fixture';
import { MemoryCounterStore } from './counters/memory-counter-store';
import { KeyLimitsResolver } from './key-limits.resolver';
import { TokenLimitsService } from './token-limits.service';
import { estimateRequestPromptTokens } from './token-reservation';

const key = aVirtualKey({ tpmLimit: 1000 });
const request = { messages: [{ role: 'user', content: 'x'.repeat(40) }], max_tokens: 90 };
// The prompt's byte bound (41 bytes and the chat format's overheads) + max_tokens.
const PROMPT = estimateRequestPromptTokens(request);
const HOLD = PROMPT + 90;

function service(
  env: Record<string, unknown>,
  counters = new MemoryCounterStore(),
): TokenLimitsService {
  const config = loadAppConfig(env);
  return new TokenLimitsService(counters, new KeyLimitsResolver(config), config);
}

describe('TokenLimitsService', () => {
  const noHeaders = () => undefined;

  it('reserves nothing and touches no counter for a key without token limits', async () => {
    const counters = new MemoryCounterStore();
    const consume = jest.spyOn(counters, 'consume');
    const reservation = await service({}, counters).reserve(
      { ...key, tpmLimit: null },
      request,
      noHeaders,
    );
    expect(reservation.holds).toEqual([]);
    expect(consume).not.toHaveBeenCalled();
  });

  it('answers budget_exceeded rather than a short wait when both the budget and the minute are full', async () => {
    const limits = service({ KEY_TOKEN_BUDGET: HOLD + Math.floor(HOLD / 2) });
    await limits.reserve(key, request, noHeaders);
    const error = await limits
      .reserve({ ...key, tpmLimit: HOLD + Math.floor(HOLD / 2) }, request, noHeaders)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayException);
    expect(error).toMatchObject({
      code: 'budget_exceeded',
      headers: { 'x-should-retry': 'false' },
    });
  });

  it('settles once, whatever calls it again', async () => {
    const counters = new MemoryCounterStore();
    const adjust = jest.spyOn(counters, 'adjust');
    const limits = service({}, counters);
    const reservation = await limits.reserve(key, request, noHeaders);
    await limits.settle(reservation, { promptTokens: 9, completionTokens: 12 });
    await limits.settle(reservation, { promptTokens: 0, completionTokens: 0 });
    expect(adjust).toHaveBeenCalledTimes(1);
    expect(adjust).toHaveBeenCalledWith(
      [{ key: 'limits:{k1}:tpm', endsAt: expect.any(Number) }],
      21 - HOLD,
      'memory',
    );
  });

  it('settles in the background: sent at once, and waited for by a graceful shutdown', async () => {
    const counters = new MemoryCounterStore();
    let answer!: () => void;
    // A Redis round trip that has not come back yet.
    const adjust = jest
      .spyOn(counters, 'adjust')
      .mockImplementation(() => new Promise<void>((resolve) => (answer = resolve)));
    const limits = service({}, counters);
    const reservation = await limits.reserve(key, request, noHeaders);

    limits.settleInBackground(reservation, { promptTokens: 9, completionTokens: 12 });
    // Sent before the answer leaves: the next check on this connection runs after it.
    expect(adjust).toHaveBeenCalledWith(
      [{ key: 'limits:{k1}:tpm', endsAt: expect.any(Number) }],
      21 - HOLD,
      'memory',
    );
    let shutDown = false;
    const shutdown = limits.beforeApplicationShutdown().then(() => (shutDown = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(shutDown).toBe(false);
    answer();
    await shutdown;
    expect(shutDown).toBe(true);
    // Nothing is kept once a settlement is answered.
    await expect(
      Promise.race([
        limits.beforeApplicationShutdown().then(() => 'idle'),
        new Promise((resolve) => setImmediate(() => resolve('waiting'))),
      ]),
    ).resolves.toBe('idle');
    limits.settleInBackground(reservation, { promptTokens: 0, completionTokens: 0 });
    expect(adjust).toHaveBeenCalledTimes(1);
  });

  it('hands the token headers to the response', async () => {
    const headers: Record<string, string>[] = [];
    await service({}).reserve(key, request, (set) => headers.push(set));
    expect(headers).toEqual([
      {
        'x-ratelimit-limit-tokens': '1000',
        'x-ratelimit-remaining-tokens': String(1000 - HOLD),
        'x-ratelimit-reset-tokens': '1m0s',
      },
    ]);
  });
});

describe('TokenLimitsService: dollar budgets and teams (docs/spend.md)', () => {
  const noHeaders = () => undefined;
  // $1/M input, $2/M output: PROMPT tokens + 90 max_tokens hold PROMPT + 180 micro-dollars.
  const price = toPrice({ input: '1', output: '2' });
  const team = {
    id: 't1',
    name: 't1',
    createdAt: new Date(),
    updatedAt: new Date(),
    budgetUsd: null,
    tokenBudget: null,
    budgetPeriod: null,
    allowedModels: [],
  };
  const used = (counters: MemoryCounterStore, key: string) =>
    counters.consume([{ key, limit: Number.MAX_SAFE_INTEGER, windowMs: 60_000 }], 0);

  it('holds the worst-case cost in nano-dollars and settles to the exact cost', async () => {
    const counters = new MemoryCounterStore();
    const limits = service({}, counters);
    const key = aVirtualKey({ budgetUsd: '1', budgetPeriod: 'day' });
    const reservation = await limits.reserve(key, request, noHeaders, { candidates: [{ price }] });
    expect(reservation.holds).toEqual([
      expect.objectContaining({ unit: 'usd', amount: (PROMPT + 180) * 1000 }),
    ]);
    const usage = { promptTokens: 10, completionTokens: 5 };
    await limits.settle(reservation, usage, costOf(usage, price));
    const spendKey = reservation.holds[0].windows[0].key;
    expect(spendKey).toMatch(/^limits:\{k1\}:spend:\d{4}-\d{2}-\d{2}$/);
    expect((await used(counters, spendKey)).counters[0].used).toBe(20_000);
  });

  it('holds no dollars when no candidate deployment has a price', async () => {
    const key = aVirtualKey({ budgetUsd: '1', budgetPeriod: 'day' });
    const reservation = await service({}).reserve(key, request, noHeaders, {
      candidates: [{ price: null }],
    });
    expect(reservation.holds).toEqual([]);
  });

  it("gives the key's hold back when the team's budget refuses", async () => {
    const counters = new MemoryCounterStore();
    const limits = service({}, counters);
    const key = aVirtualKey({ budgetUsd: '1', budgetPeriod: 'day', teamId: 't1' });
    const poorTeam = { ...team, budgetUsd: '0.0001', budgetPeriod: 'day' as const };
    const error = await limits
      .reserve(key, request, noHeaders, { candidates: [{ price }], team: poorTeam })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'spend_budget_exceeded',
      headers: { 'x-should-retry': 'false' },
    });
    expect((error as Error).message).toMatch(/dollar budget of this API key's team has \$0\.0001/);
    const day = new Date().toISOString().slice(0, 10);
    expect((await used(counters, `limits:{k1}:spend:${day}`)).counters[0].used).toBe(0);
  });

  it("charges the team's token budget together with the key's, the stricter refusing", async () => {
    const limits = service({});
    const key = aVirtualKey({ teamId: 't1' });
    const tokenTeam = { ...team, tokenBudget: HOLD + 50, budgetPeriod: 'month' as const };
    await limits.reserve(key, request, noHeaders, { team: tokenTeam });
    const error = await limits
      .reserve(key, request, noHeaders, { team: tokenTeam })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'budget_exceeded' });
    expect((error as Error).message).toMatch(
      new RegExp(`token budget of this API key's team has 50 of ${HOLD + 50}`),
    );
  });
});
