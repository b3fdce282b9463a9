export type LimitedResource = 'requests' | 'tokens';

/**
 * OpenAI's rate-limit headers: `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, the reset
 * being a duration such as `1s`, `6m0s` or `250ms`, never a timestamp.
 */
export function rateLimitHeaders(
  resource: LimitedResource,
  limit: number,
  used: number,
  resetMs: number,
): Record<string, string> {
  return {
    [`x-ratelimit-limit-${resource}`]: String(limit),
    [`x-ratelimit-remaining-${resource}`]: String(Math.max(0, limit - used)),
    [`x-ratelimit-reset-${resource}`]: formatDuration(resetMs),
  };
}

/** Whole seconds for Retry-After, rounded up so a client that waits that long finds room. */
export function retryAfterSeconds(resetMs: number): number {
  return Math.max(1, Math.ceil(resetMs / 1000));
}

/** A duration the way Go (and so OpenAI) prints it: `250ms`, `1s`, `7.66s`, `6m0s`, `1h2m3s`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.ceil(ms));
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = ((total % 60_000) / 1000).toFixed(3).replace(/\.?0+$/, '');
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
