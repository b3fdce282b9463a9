import { formatDecimal, parseDecimal } from './decimal';
import { budgetToCounterUnits, costOf, formatUsd, picoToCounterUnits, toPrice } from './price';

describe('decimal amounts', () => {
  it('parses decimal strings exactly at a scale, and refuses what it cannot hold', () => {
    expect(parseDecimal('0.15', 6)).toBe(150_000n);
    expect(parseDecimal('3', 6)).toBe(3_000_000n);
    expect(parseDecimal('0.000001', 6)).toBe(1n);
    for (const bad of ['0.0000001', '-1', '1e3', ' 1', '1.', '.5', '', '0x10', 'NaN', 1.5])
      expect(parseDecimal(bad, 6)).toBeNull();
  });

  it('formats the shortest exact decimal', () => {
    expect(formatDecimal(150n, 12)).toBe('0.00000000015');
    expect(formatDecimal(150_000_000_000n, 12)).toBe('0.15');
    expect(formatDecimal(3_000_000_000_000n, 12)).toBe('3');
    expect(formatDecimal(0n, 12)).toBe('0');
  });
});

describe('prices and costs', () => {
  const price = toPrice({ input: '0.15', output: '0.60' });

  it('falls back to input for cached and cache-write classes, to output for reasoning', () => {
    expect(price).toMatchObject({
      input: 150_000n,
      cachedInput: 150_000n,
      cacheWrite: 150_000n,
      output: 600_000n,
      reasoning: 600_000n,
    });
  });

  it('versions a price by its effective values: same prices, same version', () => {
    expect(toPrice({ input: '0.150', output: '0.6', reasoning: '0.60' }).version).toBe(
      price.version,
    );
    expect(toPrice({ input: '0.15', output: '0.61' }).version).not.toBe(price.version);
    expect(price.version).toMatch(/^[0-9a-f]{12}$/);
  });

  it('one prompt token at $0.15 per million costs exactly $0.00000015', () => {
    expect(formatUsd(costOf({ promptTokens: 1, completionTokens: 0 }, price))).toBe('0.00000015');
  });

  it('a million 1-token requests sum to exactly $0.15 (binary floats would not)', () => {
    let total = 0n;
    let floats = 0;
    for (let i = 0; i < 1_000_000; i++) {
      total += costOf({ promptTokens: 1, completionTokens: 0 }, price);
      floats += 0.15 / 1_000_000;
    }
    expect(formatUsd(total)).toBe('0.15');
    // The float sum drifts: the reason costs are integers of pico-dollars.
    expect(floats).not.toBe(0.15);
  });

  it('caps a class larger than its total, so no class is counted negative', () => {
    const odd = costOf({ promptTokens: 10, completionTokens: 5, cachedTokens: 50 }, price);
    expect(odd).toBe(costOf({ promptTokens: 10, completionTokens: 5, cachedTokens: 10 }, price));
  });

  it('budget counters count nano-dollars, rounding a cost up', () => {
    expect(picoToCounterUnits(150n)).toBe(1);
    expect(picoToCounterUnits(1000n)).toBe(1);
    expect(picoToCounterUnits(1001n)).toBe(2);
    // Beyond any budget: counted as the largest exact number, still above every limit.
    expect(picoToCounterUnits(10n ** 320n)).toBe(Number.MAX_SAFE_INTEGER);
    expect(budgetToCounterUnits('25.5')).toBe(25_500_000_000);
    expect(budgetToCounterUnits('0')).toBeNull();
    expect(budgetToCounterUnits('abc')).toBeNull();
  });
});
