import { formatDuration, rateLimitHeaders, retryAfterSeconds } from './rate-limit-headers';

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [20, '20ms'],
    [999.2, '1s'],
    [1_000, '1s'],
    [7_660, '7.66s'],
    [17_280, '17.28s'],
    [59_001, '59.001s'],
    [60_000, '1m0s'],
    [360_000, '6m0s'],
    [61_500, '1m1.5s'],
    [3_600_000, '1h0m0s'],
    [3_723_000, '1h2m3s'],
    [-5, '0ms'],
  ])('prints %p ms as %p, the way OpenAI (Go) does', (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});

describe('rateLimitHeaders', () => {
  it('reports limit, what is left and when the window resets', () => {
    expect(rateLimitHeaders('requests', 100, 1, 60_000)).toEqual({
      'x-ratelimit-limit-requests': '100',
      'x-ratelimit-remaining-requests': '99',
      'x-ratelimit-reset-requests': '1m0s',
    });
  });

  it('never reports a negative remainder, even when usage settled above the limit', () => {
    expect(rateLimitHeaders('tokens', 1000, 1200, 1_500)['x-ratelimit-remaining-tokens']).toBe('0');
  });
});

describe('retryAfterSeconds', () => {
  it('rounds up, so waiting that long always finds the window renewed', () => {
    expect(retryAfterSeconds(59_001)).toBe(60);
    expect(retryAfterSeconds(1_000)).toBe(1);
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(0)).toBe(1);
  });
});
