/**
 * Every error the gateway can answer with. The table is the single source of truth for the
 * status, the OpenAI `type` and the default message of each stable `code`; the README's error
 * table is generated from the same names.
 */
export const GATEWAY_ERRORS = {
  invalid_json: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The request body is not valid JSON.',
  },
  invalid_body: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The request body must be a JSON object.',
  },
  invalid_parameter: {
    status: 400,
    type: 'invalid_request_error',
    message: 'A request parameter is invalid.',
  },
  unsupported_tool: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This tool type is run by the provider itself, which the gateway cannot do.',
  },
  store_disabled: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The response store is turned off on this gateway (RESPONSES_STORE=off).',
  },
  model_not_supported: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This model is not served by this endpoint.',
  },
  upstream_bad_request: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The model provider rejected the request as invalid.',
  },
  context_length_exceeded: {
    status: 400,
    type: 'invalid_request_error',
    message: "The request exceeds the model's maximum context length.",
  },
  malformed_request: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The HTTP request is malformed (request line or headers such as Content-Length).',
  },
  missing_api_key: {
    status: 401,
    type: 'invalid_request_error',
    message: 'No API key provided. Send it as "Authorization: Bearer <key>".',
  },
  invalid_api_key: {
    status: 401,
    type: 'invalid_request_error',
    message: 'Incorrect API key provided.',
  },
  key_revoked: {
    status: 401,
    type: 'invalid_request_error',
    message: 'This API key has been revoked.',
  },
  key_expired: { status: 401, type: 'invalid_request_error', message: 'This API key has expired.' },
  key_rotated: {
    status: 401,
    type: 'invalid_request_error',
    message: 'This API key was rotated and its grace period has ended. Use the new key.',
  },
  invalid_admin_key: {
    status: 401,
    type: 'invalid_request_error',
    message: 'Incorrect admin key provided.',
  },
  invalid_admin_token: {
    status: 401,
    type: 'invalid_request_error',
    message: 'The bearer token is not a valid token of the configured identity provider.',
  },
  dashboard_session_required: {
    status: 401,
    type: 'invalid_request_error',
    message: 'Sign in to the dashboard first: no session, or it expired.',
  },
  model_not_allowed: {
    status: 403,
    type: 'permission_error',
    message: 'This API key is not allowed to use the requested model.',
  },
  csrf_token_invalid: {
    status: 403,
    type: 'permission_error',
    message: 'Missing or wrong X-CSRF-Token header for this dashboard session.',
  },
  permission_denied: {
    status: 403,
    type: 'permission_error',
    message: 'Your role does not allow this.',
  },
  not_found: { status: 404, type: 'invalid_request_error', message: 'Unknown route.' },
  model_not_found: {
    status: 404,
    type: 'invalid_request_error',
    message: 'The requested model does not exist.',
  },
  response_not_found: {
    status: 404,
    type: 'invalid_request_error',
    message: 'No stored response with this id.',
  },
  key_not_found: {
    status: 404,
    type: 'invalid_request_error',
    message: 'No virtual key with this id or name.',
  },
  team_not_found: {
    status: 404,
    type: 'invalid_request_error',
    message: 'No team with this id or name.',
  },
  request_timeout: {
    status: 408,
    type: 'invalid_request_error',
    message: 'The request was not received in time.',
  },
  key_name_taken: {
    status: 409,
    type: 'invalid_request_error',
    message: 'A virtual key with this name exists.',
  },
  key_already_revoked: {
    status: 409,
    type: 'invalid_request_error',
    message: 'This virtual key is revoked; a revoked key cannot be rotated.',
  },
  team_name_taken: {
    status: 409,
    type: 'invalid_request_error',
    message: 'A team with this name exists.',
  },
  request_too_large: {
    status: 413,
    type: 'invalid_request_error',
    message: 'The request body is too large.',
  },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    message: 'Unsupported Content-Type. Send the body as application/json.',
  },
  expectation_failed: {
    status: 417,
    type: 'invalid_request_error',
    message: 'Unsupported Expect header; only "Expect: 100-continue" is supported.',
  },
  invalid_gateway_config: {
    status: 422,
    type: 'invalid_request_error',
    message: 'GATEWAY_CONFIG is invalid; the running config was kept.',
  },
  rate_limit_exceeded: { status: 429, type: 'requests', message: 'Rate limit exceeded.' },
  token_rate_limit_exceeded: { status: 429, type: 'tokens', message: 'Token rate limit exceeded.' },
  budget_exceeded: {
    status: 429,
    type: 'insufficient_quota',
    message: 'The token budget of this API key is spent.',
  },
  // 429 like the token budget, so clients treat both budgets alike (docs/spend.md).
  spend_budget_exceeded: {
    status: 429,
    type: 'insufficient_quota',
    message: 'The dollar budget of this API key or its team is spent.',
  },
  upstream_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'The model provider is rate limiting requests. Retry later.',
  },
  headers_too_large: {
    status: 431,
    type: 'invalid_request_error',
    message: 'The request headers are too large.',
  },
  internal_error: {
    status: 500,
    type: 'server_error',
    message: 'The gateway had an internal error.',
  },
  upstream_error: {
    status: 502,
    type: 'upstream_error',
    message: 'The model provider failed to answer.',
  },
  upstream_auth_failed: {
    status: 502,
    type: 'upstream_error',
    message: 'The gateway could not authenticate with the model provider.',
  },
  gateway_overloaded: {
    status: 503,
    type: 'server_error',
    message: 'The gateway is at its concurrency limit for this model. Retry later.',
  },
  upstream_overloaded: {
    status: 503,
    type: 'server_error',
    message: 'The model provider is overloaded. Retry later.',
  },
  limits_unavailable: { status: 503, type: 'server_error', message: 'Limits are unavailable.' },
  service_unavailable: { status: 503, type: 'server_error', message: 'The service is not ready.' },
  upstream_timeout: {
    status: 504,
    type: 'timeout',
    message: 'The model provider did not answer in time.',
  },
} as const satisfies Record<string, { status: number; type: string; message: string }>;

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

/** Who an error comes from: the gateway itself, or the model provider behind it. */
export type ErrorSource = 'gateway' | 'upstream';

/**
 * The codes of failures that arose at the provider (it answered an error, or failed to answer
 * in time or at all); every other code is the gateway's own decision about the request.
 */
export const UPSTREAM_ERROR_CODES: ReadonlySet<GatewayErrorCode> = new Set<GatewayErrorCode>([
  'upstream_bad_request',
  'context_length_exceeded',
  'upstream_rate_limited',
  'upstream_error',
  'upstream_auth_failed',
  'upstream_timeout',
]);

export function errorSource(code: GatewayErrorCode): ErrorSource {
  return UPSTREAM_ERROR_CODES.has(code) ? 'upstream' : 'gateway';
}
