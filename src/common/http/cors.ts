import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';

/**
 * CORS options for CORS_ORIGINS, or undefined when it is empty: then no CORS header is ever sent.
 * Only the listed origins are echoed back; any other origin gets a response without
 * access-control-allow-origin, which the browser refuses. Credentials are not allowed: clients
 * authenticate with an Authorization header, not cookies.
 */
export function corsOptionsFrom(list: string | undefined): CorsOptions | undefined {
  const origins = (list ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  if (origins.length === 0) return undefined;
  return {
    origin: origins,
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    // Unset: the headers a preflight asks for are allowed. The official openai client sends
    // x-stainless-* headers besides authorization and content-type, and a fixed list would
    // make browsers refuse it; without credentials, reflecting them grants nothing extra.
    exposedHeaders: [
      'x-request-id',
      // The same id under Anthropic's name, which its SDKs read (/v1/messages).
      'request-id',
      // Anthropic's SDKs also obey it: false on a spent budget, which waiting cannot cure.
      'x-should-retry',
      'retry-after',
      ...['limit', 'remaining', 'reset'].flatMap((kind) => [
        `x-ratelimit-${kind}-requests`,
        `x-ratelimit-${kind}-tokens`,
      ]),
      'x-gateway-deployment',
      'x-gateway-attempts',
      'x-gateway-overhead-ms',
      // The request's cost in USD (docs/spend.md), for browser clients too.
      'x-gateway-cost-usd',
    ],
    maxAge: 600,
  };
}
