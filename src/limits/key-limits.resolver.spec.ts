import { loadAppConfig } from '../config/app-config';
import { aVirtualKey } from '../keys/virtual-key.fixture';
import { KeyLimitsResolver } from './key-limits.resolver';

const key = aVirtualKey();

function resolver(env: Record<string, unknown> = {}): KeyLimitsResolver {
  return new KeyLimitsResolver(loadAppConfig(env));
}

describe('KeyLimitsResolver', () => {
  it('gives a key without settings the defaults: 100 requests per minute, no token limits', () => {
    expect(resolver().forKey(key)).toEqual({
      requestsPerMinute: 100,
      tokensPerMinute: null,
      budget: null,
    });
  });

  it('lets the configuration change the defaults', () => {
    const limits = resolver({
      KEY_RPM_LIMIT: 30,
      KEY_TOKEN_BUDGET: 5000,
      KEY_BUDGET_PERIOD: 'day',
    }).forKey(key);
    expect(limits).toEqual({
      requestsPerMinute: 30,
      tokensPerMinute: null,
      budget: { tokens: 5000, period: 'day' },
    });
  });

  it("puts the key's own settings over the configuration", () => {
    const limits = resolver({ KEY_RPM_LIMIT: 30, KEY_TOKEN_BUDGET: 5000 }).forKey({
      ...key,
      rpmLimit: 7,
      tpmLimit: 900,
    });
    expect(limits).toMatchObject({ requestsPerMinute: 7, tokensPerMinute: 900 });
  });

  it('reads a per-key budget as soon as the key carries tokenBudget and budgetPeriod', () => {
    const limits = resolver({ KEY_TOKEN_BUDGET: 5000, KEY_BUDGET_PERIOD: 'month' }).forKey({
      ...key,
      tokenBudget: 200,
      budgetPeriod: 'day',
    });
    expect(limits.budget).toEqual({ tokens: 200, period: 'day' });
  });

  it('treats 0 as "no limit", for defaults and keys alike', () => {
    expect(resolver({ KEY_RPM_LIMIT: 0 }).forKey(key).requestsPerMinute).toBeNull();
    expect(resolver().forKey({ ...key, rpmLimit: 0, tpmLimit: 0 })).toMatchObject({
      requestsPerMinute: null,
      tokensPerMinute: null,
    });
    expect(
      resolver({ KEY_TOKEN_BUDGET: 5000 }).forKey({ ...key, tokenBudget: 0 }).budget,
    ).toBeNull();
  });
});
