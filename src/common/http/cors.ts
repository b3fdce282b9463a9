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
    allowedHeaders: ['authorization', 'content-type', 'x-request-id'],
    exposedHeaders: ['x-request-id', 'retry-after', 'x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests'],
    maxAge: 600,
  };
}
