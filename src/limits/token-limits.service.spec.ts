import { ConfigService } from '@nestjs/config';
import { GatewayException } from '../common/errors/gateway.exception';
import { aVirtualKey } from '../keys/virtual-key.fixture';
import { MemoryCounterStore } from './counters/memory-counter-store';
import { KeyLimitsResolver } from './key-limits.resolver';
import { TokenLimitsService } from './token-limits.service';

const key = aVirtualKey({ tpmLimit: 1000 });
// 40 characters: a prompt estimate of 10 tokens.
const request = { messages: [{ content: 'x'.repeat(40) }], max_tokens: 90 };

function service(
  env: Record<string, unknown>,
  counters = new MemoryCounterStore(),
): TokenLimitsService {
  const config = new ConfigService(env);
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
    const limits = service({ KEY_TOKEN_BUDGET: 150 });
    await limits.reserve(key, request, noHeaders);
    const error = await limits
      .reserve({ ...key, tpmLimit: 150 }, request, noHeaders)
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
      21 - 100,
      'memory',
    );
  });

  it('hands the token headers to the response', async () => {
    const headers: Record<string, string>[] = [];
    await service({}).reserve(key, request, (set) => headers.push(set));
    expect(headers).toEqual([
      {
        'x-ratelimit-limit-tokens': '1000',
        'x-ratelimit-remaining-tokens': '900',
        'x-ratelimit-reset-tokens': '1m0s',
      },
    ]);
  });
});
