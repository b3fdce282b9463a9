import {
  parseRetryAfter,
  UpstreamError,
  UpstreamErrorKind,
} from '../../common/errors/upstream.error';

// Google API errors: {"error":{"code":429,"message":"...","status":"RESOURCE_EXHAUSTED","details":[...]}}
// (the non-SSE stream endpoint wraps it in an array). The canonical `status` decides.

const KIND_BY_STATUS: Record<string, UpstreamErrorKind> = {
  INVALID_ARGUMENT: 'bad_request',
  // Google uses it for "free tier not available in your country, enable billing" and "user
  // location not supported": the deployment's project cannot serve, the client's request is fine.
  // Another deployment may serve it, and the client gets a 502 rather than a 400 blaming it.
  FAILED_PRECONDITION: 'upstream_auth',
  OUT_OF_RANGE: 'bad_request',
  UNAUTHENTICATED: 'upstream_auth',
  PERMISSION_DENIED: 'upstream_auth',
  RESOURCE_EXHAUSTED: 'rate_limited',
  // "The model is overloaded": temporary, a 503 with Retry-After to the client.
  UNAVAILABLE: 'upstream_overloaded',
  INTERNAL: 'unavailable',
  UNKNOWN: 'unavailable',
  // The deployment names a model the API does not know: our configuration, not the client's request.
  NOT_FOUND: 'unavailable',
  DEADLINE_EXCEEDED: 'timeout',
};

const CONTEXT_LENGTH =
  /input token count.*exceeds|exceeds the maximum number of tokens|context (window|length)/i;

interface GoogleError {
  code?: unknown;
  message?: unknown;
  status?: unknown;
  details?: Array<{ '@type'?: string; reason?: string; retryDelay?: string }>;
}

function errorOf(body: unknown): GoogleError | undefined {
  const envelope = Array.isArray(body) ? body[0] : body;
  const error = (envelope as { error?: unknown } | null)?.error;
  return error && typeof error === 'object' ? (error as GoogleError) : undefined;
}

function kindFor(
  error: GoogleError | undefined,
  httpStatus: number | undefined,
): UpstreamErrorKind {
  const message = typeof error?.message === 'string' ? error.message : '';
  const details = Array.isArray(error?.details) ? error.details : [];
  // A wrong API key is a 400 INVALID_ARGUMENT with reason API_KEY_INVALID: our key, not the client's request.
  if (
    details.some((detail) => detail?.reason === 'API_KEY_INVALID') ||
    /API key not valid/i.test(message)
  )
    return 'upstream_auth';
  const byStatus = typeof error?.status === 'string' ? KIND_BY_STATUS[error.status] : undefined;
  const kind =
    byStatus ??
    kindByHttpStatus(httpStatus ?? (typeof error?.code === 'number' ? error.code : undefined));
  return kind === 'bad_request' && CONTEXT_LENGTH.test(message) ? 'context_length' : kind;
}

function kindByHttpStatus(status: number | undefined): UpstreamErrorKind {
  if (status === 401 || status === 403) return 'upstream_auth';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status === 504) return 'timeout';
  if (status !== undefined && status >= 400 && status < 500 && status !== 404 && status !== 409)
    return 'bad_request';
  return 'unavailable';
}

/** Google puts the wait in a RetryInfo detail ("37s", "1.5s") rather than a Retry-After header. */
function retryDelaySeconds(error: GoogleError | undefined): number | undefined {
  const delay = error?.details?.find((detail) =>
    detail?.['@type']?.endsWith('google.rpc.RetryInfo'),
  )?.retryDelay;
  const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
  return match ? Math.ceil(Number(match[1])) : undefined;
}

export function geminiErrorFromBody(
  body: unknown,
  httpStatus: number | undefined,
  context: string,
  retryAfterHeader?: string,
): UpstreamError {
  const error = errorOf(body);
  return new UpstreamError(
    kindFor(error, httpStatus),
    `${context}: ${JSON.stringify(body).slice(0, 2000)}`,
    {
      upstreamStatus: httpStatus,
      retryAfterSeconds: parseRetryAfter(retryAfterHeader) ?? retryDelaySeconds(error),
    },
  );
}

/** A non-2xx answer; `body` is the raw response text. */
export function geminiErrorFromResponse(
  status: number,
  body: string,
  retryAfterHeader?: string,
): UpstreamError {
  let parsed: unknown = body;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not Google's JSON (a proxy's page, say): the HTTP status decides.
  }
  return geminiErrorFromBody(parsed, status, `HTTP ${status}`, retryAfterHeader);
}
