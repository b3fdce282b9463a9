import { GatewayException } from './gateway.exception';

export type UpstreamErrorKind =
  | 'upstream_auth'
  | 'rate_limited'
  | 'bad_request'
  | 'context_length'
  | 'unavailable'
  | 'invalid_response'
  | 'timeout'
  /** The gateway's own per-deployment concurrency limit (`max_concurrency`) is reached. */
  | 'overloaded'
  /** The provider says it is overloaded (Anthropic 529 overloaded_error, Google UNAVAILABLE): temporary. */
  | 'upstream_overloaded';

/**
 * A failure talking to a provider. `detail` (which may hold the provider's raw body) is for
 * logs only: the client sees the generic message of the mapped gateway code.
 */
export class UpstreamError extends Error {
  constructor(
    readonly kind: UpstreamErrorKind,
    readonly detail: string,
    readonly options: { upstreamStatus?: number; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(`${kind}: ${detail}`, { cause: options.cause });
    this.name = 'UpstreamError';
  }

  /** Worth trying the next deployment: the request itself is not at fault. */
  get retryable(): boolean {
    return [
      'rate_limited',
      'unavailable',
      'timeout',
      'upstream_auth',
      'invalid_response',
      'overloaded',
      'upstream_overloaded',
    ].includes(this.kind);
  }

  toGatewayException(): GatewayException {
    switch (this.kind) {
      case 'rate_limited': {
        // Retry-After is what clients (the openai SDK's retries among them) go by on a 429, so there is always one.
        return new GatewayException('upstream_rate_limited', {
          cause: this,
          headers: { 'retry-after': String(this.options.retryAfterSeconds ?? 1) },
        });
      }
      case 'bad_request':
        return new GatewayException('upstream_bad_request', { cause: this });
      case 'context_length':
        return new GatewayException('context_length_exceeded', { cause: this, param: 'messages' });
      case 'upstream_auth':
        return new GatewayException('upstream_auth_failed', { cause: this });
      case 'timeout':
        return new GatewayException('upstream_timeout', { cause: this });
      case 'overloaded':
        return new GatewayException('gateway_overloaded', {
          cause: this,
          headers: { 'retry-after': String(this.options.retryAfterSeconds ?? 1) },
        });
      case 'upstream_overloaded':
        return new GatewayException('upstream_overloaded', {
          cause: this,
          headers: { 'retry-after': String(this.options.retryAfterSeconds ?? 1) },
        });
      case 'unavailable':
      case 'invalid_response':
        return new GatewayException('upstream_error', { cause: this });
    }
  }
}

/** Classifies a non-2xx provider answer by status (and body text for context-length errors). */
export function upstreamErrorFromStatus(
  status: number,
  body: string,
  retryAfterHeader?: string,
): UpstreamError {
  const detail = `HTTP ${status}: ${body.slice(0, 2000)}`;
  if (status === 401 || status === 403)
    return new UpstreamError('upstream_auth', detail, { upstreamStatus: status });
  if (status === 429) {
    return new UpstreamError('rate_limited', detail, {
      upstreamStatus: status,
      retryAfterSeconds: parseRetryAfter(retryAfterHeader),
    });
  }
  if (status === 408 || status === 504)
    return new UpstreamError('timeout', detail, { upstreamStatus: status });
  if (status >= 400 && status < 500 && status !== 404 && status !== 409) {
    const kind = /context[_ ]length|maximum context|too many tokens/i.test(body)
      ? 'context_length'
      : 'bad_request';
    return new UpstreamError(kind, detail, { upstreamStatus: status });
  }
  return new UpstreamError('unavailable', detail, { upstreamStatus: status });
}

/** Retry-After in whole seconds from either form the header may take (seconds or HTTP date). */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
