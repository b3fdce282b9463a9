/**
 * Exact decimal amounts as scaled BigInt integers: no binary floating point touches money
 * (docs/spend.md, "Exactness"). A value `v` at scale `d` stands for v / 10^d.
 */

const DECIMAL = /^(\d{1,15})(?:\.(\d+))?$/;

/**
 * Parses a non-negative decimal string ("0.15", "3", "0.000001") into an integer at `decimals`
 * places. Returns null for anything else: signs, exponents, spaces, or more places than
 * `decimals` (which could not be represented exactly).
 */
export function parseDecimal(text: unknown, decimals: number): bigint | null {
  if (typeof text !== 'string') return null;
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) return null;
  return BigInt(match[1] + fraction.padEnd(decimals, '0'));
}

/** The shortest decimal string of value / 10^decimals: 150n at 12 places is "0.00000000015". */
export function formatDecimal(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** "1.230000000000" -> "1.23": Postgres numeric text, shortened without any float. */
export function trimDecimal(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** Integer division rounding up, for non-negative values. */
export function divideUp(value: bigint, divisor: bigint): bigint {
  return (value + divisor - 1n) / divisor;
}
