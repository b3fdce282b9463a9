import {
  parseRetryAfter,
  UpstreamError,
  UpstreamErrorKind,
} from '../../common/errors/upstream.error';

// Anthropic's error body: {"type":"error","error":{"type":"overloaded_error","message":"..."},"request_id":"req_..."}
// The `error.type` says more than the status (529 is not a standard status), so it decides first.

const CONTEXT_LENGTH = /prompt is too long|exceeds? (the )?context|context (window|limit|length)/i;

const KIND_BY_TYPE: Record<string, UpstreamErrorKind> = {
  invalid_request_error: 'bad_request',
  // 413: the body is over the API's size limit; another deployment would refuse it too.
  request_too_large: 'bad_request',
  // Our provider key is wrong, lacks a permission or its account is out of credit: the client's
  // request is fine and another deployment may serve it.
  authentication_error: 'upstream_auth',
  permission_error: 'upstream_auth',
  billing_error: 'upstream_auth',
  // 404 means the deployment names a model (or base_url) the provider does not know: a fault of
  // our configuration, not of the client's request, so it is retryable elsewhere and a 502.
  not_found_error: 'unavailable',
  rate_limit_error: 'rate_limited',
  api_error: 'unavailable',
  // 529: temporary, and a 503 (Retry-After) to the client, not a 502 saying the provider failed.
  overloaded_error: 'upstream_overloaded',
  timeout_error: 'timeout',
};

interface AnthropicErrorBody {
  error?: { type?: unknown; message?: unknown };
}

function errorFields(body: unknown): { type?: string; message?: string } {
  const error = (body as AnthropicErrorBody | null)?.error;
  return {
    type: typeof error?.type === 'string' ? error.type : undefined,
    message: typeof error?.message === 'string' ? error.message : undefined,
  };
}

// Anthropic reports an exhausted prepaid balance as a 400 invalid_request_error: our account's
// problem, not the client's request.
const ACCOUNT_PROBLEM = /credit balance/i;

function kindFor(
  type: string | undefined,
  message: string | undefined,
  status: number | undefined,
): UpstreamErrorKind {
  if (message && ACCOUNT_PROBLEM.test(message)) return 'upstream_auth';
  let kind = type ? KIND_BY_TYPE[type] : undefined;
  if (!kind) kind = kindByStatus(status);
  if (kind === 'bad_request' && message && CONTEXT_LENGTH.test(message)) return 'context_length';
  return kind;
}

function kindByStatus(status: number | undefined): UpstreamErrorKind {
  if (status === 401 || status === 403) return 'upstream_auth';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 529) return 'upstream_overloaded';
  if (status !== undefined && status >= 400 && status < 500 && status !== 404 && status !== 409)
    return 'bad_request';
  return 'unavailable';
}

/** A non-2xx answer from the Messages API. `body` is the raw response text. */
export function anthropicErrorFromResponse(
  status: number,
  body: string,
  retryAfterHeader?: string,
): UpstreamError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const { type, message } = errorFields(parsed);
  return new UpstreamError(
    kindFor(type, message ?? body, status),
    `HTTP ${status}: ${body.slice(0, 2000)}`,
    {
      upstreamStatus: status,
      retryAfterSeconds: parseRetryAfter(retryAfterHeader),
    },
  );
}

/** An `event: error` inside a stream that had already started with 200 (e.g. overloaded mid-answer). */
export function anthropicErrorFromEvent(data: unknown): UpstreamError {
  const { type, message } = errorFields(data);
  return new UpstreamError(
    kindFor(type, message, undefined),
    `error event in stream: ${JSON.stringify(data).slice(0, 2000)}`,
  );
}
