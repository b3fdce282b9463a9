import type { Request } from 'express';
import type { GatewayErrorCode } from '../../common/errors/gateway-error-code';
import { GatewayException } from '../../common/errors/gateway.exception';
import {
  deliberateError,
  type ErrorEnvelope,
  type RenderedError,
} from '../../common/filters/error-envelope';
import type { AnthropicErrorBody, AnthropicErrorType } from './anthropic-messages.types';

// The gateway's errors in Anthropic's shape: `{"type":"error","error":{"type","message"},
// "request_id"}` with a `request-id` header, the status and `type` Anthropic's SDKs map to their
// error classes. The error codes stay the one table (GATEWAY_ERRORS); only the envelope differs.

/** Where Anthropic's status or type differs from what the code's status alone would give. */
const OVERRIDES: Partial<Record<GatewayErrorCode, { status: number; type: AnthropicErrorType }>> = {
  request_too_large: { status: 413, type: 'request_too_large' },
  // Anthropic's own "overloaded" status: the SDKs retry it, as they do a 503.
  gateway_overloaded: { status: 529, type: 'overloaded_error' },
  upstream_overloaded: { status: 529, type: 'overloaded_error' },
  upstream_timeout: { status: 504, type: 'timeout_error' },
};

const TYPES_BY_STATUS: Record<number, AnthropicErrorType> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

/** Budgets do not come back by waiting a few seconds: tell the SDKs not to retry. */
const EXHAUSTED: ReadonlySet<GatewayErrorCode> = new Set<GatewayErrorCode>([
  'budget_exceeded',
  'spend_budget_exceeded',
]);

export function anthropicStatusAndType(error: GatewayException): {
  status: number;
  type: AnthropicErrorType;
} {
  const override = OVERRIDES[error.code];
  if (override) return override;
  const type =
    TYPES_BY_STATUS[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error');
  return { status: error.status, type };
}

/**
 * Clients that compact a conversation when it no longer fits (Claude Code among them) look for
 * Anthropic's wording; the gateway's message follows it.
 */
function messageOf(error: GatewayException): string {
  if (error.code === 'context_length_exceeded' && !/^prompt is too long/i.test(error.message))
    return `prompt is too long: ${error.message}`;
  // Anthropic's clients send the key as x-api-key, which the default message leaves out.
  if (error.code === 'missing_api_key')
    return 'No API key provided. Send it as "x-api-key: <key>" or "Authorization: Bearer <key>".';
  return error.message;
}

export function anthropicErrorBody(error: GatewayException, requestId: string): AnthropicErrorBody {
  const { type } = anthropicStatusAndType(error);
  return { type: 'error', error: { type, message: messageOf(error) }, request_id: requestId };
}

/** The status, headers and body of an error answer on /v1/messages*. */
export function renderAnthropicError(
  error: GatewayException,
  requestId: string,
): RenderedError & { body: AnthropicErrorBody } {
  const { status } = anthropicStatusAndType(error);
  const headers = Object.assign({}, error.headers, { 'request-id': requestId });
  if (EXHAUSTED.has(error.code)) headers['x-should-retry'] = 'false';
  return { status, headers, body: anthropicErrorBody(error, requestId) };
}

/** Any thrown value as the gateway answers it: its own errors as they are, the rest a 500. */
export function asGatewayException(error: unknown): GatewayException {
  return deliberateError(error) ?? new GatewayException('internal_error');
}

export const ANTHROPIC_ERROR_ENVELOPE: ErrorEnvelope = { render: renderAnthropicError };

/**
 * The requests answered in Anthropic's shape: /v1/messages and its count_tokens, and a model
 * list asked for by an Anthropic client (an `anthropic-version` header, or its `x-api-key`).
 */
export function speaksAnthropic(request: Request): boolean {
  const path = request.path;
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return true;
  return (path === '/v1/models' || path.startsWith('/v1/models/')) && isAnthropicClient(request);
}

export function isAnthropicClient(request: Pick<Request, 'headers'>): boolean {
  const { headers } = request;
  return headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined;
}
