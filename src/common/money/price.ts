import { createHash } from 'node:crypto';
import type { TokenUsage } from '../tokens/token-usage';
import { divideUp, formatDecimal, parseDecimal } from './decimal';

/**
 * Prices are USD per million tokens with at most PRICE_DECIMALS places, so one token costs a
 * whole number of 10^-(6 + PRICE_DECIMALS) dollars: with 6 places, pico-dollars. Costs are kept
 * at that scale (COST_DECIMALS) and stored in numeric(30,12): exact for every request.
 */
const PRICE_DECIMALS = 6;
export const COST_DECIMALS = 12;
/** Dollar budgets: whole micro-dollars in settings, nano-dollars in the limit counters. */
const BUDGET_DECIMALS = 6;
export const COUNTER_DECIMALS = 9;
/** 2^53 nano-dollars is about $9.007M: the counters hold integers exactly up to there. */
export const MAX_BUDGET_USD = '9000000';

export const PRICE_CLASSES = [
  'input',
  'cached_input',
  'cache_write',
  'output',
  'reasoning',
] as const;
export type PriceClass = (typeof PRICE_CLASSES)[number];

/** A deployment's price, each class in pico-dollars per token (= micro-dollars per million). */
export interface Price {
  input: bigint;
  cachedInput: bigint;
  cacheWrite: bigint;
  output: bigint;
  reasoning: bigint;
  /** Short hash of the effective price, stored with every cost computed from it. */
  version: string;
}

/**
 * The effective price from the config's decimal strings; absent classes fall back to `input`
 * (cached_input, cache_write) or `output` (reasoning). Throws on a malformed string: the config
 * validation has already refused those with a clear message.
 */
export function toPrice(raw: Partial<Record<PriceClass, string>>): Price {
  const read = (name: PriceClass, fallback?: PriceClass): bigint => {
    const text = raw[name] ?? (fallback ? raw[fallback] : undefined);
    const value = parseDecimal(text, PRICE_DECIMALS);
    if (value === null) throw new Error(`price.${name}: "${String(text)}" is not a valid price`);
    return value;
  };
  const classes = {
    input: read('input'),
    cachedInput: read('cached_input', 'input'),
    cacheWrite: read('cache_write', 'input'),
    output: read('output'),
    reasoning: read('reasoning', 'output'),
  };
  const canonical = Object.entries(classes)
    .map(([name, value]) => `${name}=${formatDecimal(value, PRICE_DECIMALS)}`)
    .join(';');
  const version = createHash('sha256').update(canonical).digest('hex').slice(0, 12);
  return Object.assign(classes, { version });
}

/**
 * Exact cost in pico-dollars. Uncached input is what remains of the prompt after the cached and
 * cache-write shares; plain output what remains after reasoning. A share larger than its total
 * (a provider bug) is capped, so no class is ever counted negative.
 */
export function costOf(usage: TokenUsage, price: Price): bigint {
  const prompt = whole(usage.promptTokens);
  const cached = Math.min(whole(usage.cachedTokens), prompt);
  const cacheWrite = Math.min(whole(usage.cacheWriteTokens), prompt - cached);
  const completion = whole(usage.completionTokens);
  const reasoning = Math.min(whole(usage.reasoningTokens), completion);
  return (
    BigInt(prompt - cached - cacheWrite) * price.input +
    BigInt(cached) * price.cachedInput +
    BigInt(cacheWrite) * price.cacheWrite +
    BigInt(completion - reasoning) * price.output +
    BigInt(reasoning) * price.reasoning
  );
}

/** A cost as the decimal string of US dollars used in headers and answers: "0.00000015". */
export function formatUsd(pico: bigint): string {
  return formatDecimal(pico, COST_DECIMALS);
}

/**
 * Pico-dollars to the nano-dollars of the budget counters, rounded up so they never under-count.
 * A hold beyond Number.MAX_SAFE_INTEGER (above any budget, MAX_BUDGET_USD) counts as that much,
 * so the counters stay exact integers and the request is refused as over budget.
 */
export function picoToCounterUnits(pico: bigint): number {
  const units = divideUp(pico, 1000n);
  return units > MAX_SAFE_UNITS ? Number.MAX_SAFE_INTEGER : Number(units);
}

const MAX_SAFE_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

/** Decimal US dollars as budgets take them: up to 7 whole digits and 6 places, never a number. */
export const BUDGET_USD_PATTERN = /^\d{1,7}(\.\d{1,6})?$/;

/**
 * A valid dollar budget: a decimal string above 0 and at most MAX_BUDGET_USD, so the nano-dollar
 * limit counters hold it exactly (docs/spend.md, "Exactness"). The admin API, the CLI and the
 * seed file all check budgets with this.
 */
export function isBudgetUsd(value: unknown): value is string {
  if (typeof value !== 'string' || !BUDGET_USD_PATTERN.test(value)) return false;
  const units = budgetToCounterUnits(value);
  return units !== null && units <= Number(MAX_BUDGET_USD) * 1e9;
}

/** A budget setting ("25.50") in counter units (nano-dollars); null when not a valid amount. */
export function budgetToCounterUnits(usd: string): number | null {
  const micro = parseDecimal(usd, BUDGET_DECIMALS);
  if (micro === null || micro === 0n) return null;
  return Number(micro * 1000n);
}

function whole(value: number | undefined): number {
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : 0;
}
