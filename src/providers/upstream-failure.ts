import { UpstreamError, upstreamErrorFromStatus } from '../common/errors/upstream.error';
import type { UpstreamSignal } from './attempt-signal';

/** How a provider reads its own non-2xx answers (its error body format); by HTTP status by default. */
export type ClassifyRefusal = (
  status: number,
  body: string,
  retryAfterHeader?: string,
) => UpstreamError;

/** Response headers as Node and undici hand them over (names in lower case). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** An error body is only logged (2,000 characters of it); a provider's huge page is not read. */
export const ERROR_BODY_LIMIT = 64 * 1024;

/**
 * A non-2xx answer as the provider's error: its status, what was read of its body (at most
 * ERROR_BODY_LIMIT bytes) and its first Retry-After, read by `classify` or by status.
 */
export function refusalOf(
  classify: ClassifyRefusal | undefined,
  status: number,
  body: string,
  headers: ResponseHeaders,
): UpstreamError {
  const retryAfter = headers['retry-after'];
  return (classify ?? upstreamErrorFromStatus)(
    status,
    body,
    Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
  );
}

/** Classifies a transport failure; a client abort is passed through untouched. */
export function toUpstreamError(error: unknown, signal: UpstreamSignal): unknown {
  if (signal.aborted) return signal.reason ?? error;
  if (error instanceof UpstreamError) return error;
  const code = (error as { code?: string })?.code ?? '';
  const message = (error as Error)?.message ?? String(error);
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return new UpstreamError('timeout', `${code}: ${message}`, { cause: error });
  }
  return new UpstreamError('unavailable', `${code || 'transport error'}: ${message}`, {
    cause: error,
  });
}
