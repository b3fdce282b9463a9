import { GATEWAY_ERRORS, type GatewayErrorCode } from '../../common/errors/gateway-error-code';
import { GatewayException } from '../../common/errors/gateway.exception';
import { UpstreamError } from '../../common/errors/upstream.error';
import { asGatewayException, renderAnthropicError } from './anthropic-messages.errors';

describe('renderAnthropicError', () => {
  it.each([
    ['invalid_parameter', 400, 'invalid_request_error'],
    ['invalid_json', 400, 'invalid_request_error'],
    ['upstream_bad_request', 400, 'invalid_request_error'],
    ['invalid_api_key', 401, 'authentication_error'],
    ['key_expired', 401, 'authentication_error'],
    ['model_not_allowed', 403, 'permission_error'],
    ['model_not_found', 404, 'not_found_error'],
    ['not_found', 404, 'not_found_error'],
    ['request_too_large', 413, 'request_too_large'],
    ['unsupported_media_type', 415, 'invalid_request_error'],
    ['rate_limit_exceeded', 429, 'rate_limit_error'],
    ['token_rate_limit_exceeded', 429, 'rate_limit_error'],
    ['budget_exceeded', 429, 'rate_limit_error'],
    ['upstream_rate_limited', 429, 'rate_limit_error'],
    ['internal_error', 500, 'api_error'],
    ['upstream_error', 502, 'api_error'],
    ['upstream_auth_failed', 502, 'api_error'],
    ['gateway_overloaded', 529, 'overloaded_error'],
    ['upstream_overloaded', 529, 'overloaded_error'],
    ['service_unavailable', 503, 'api_error'],
    ['upstream_timeout', 504, 'timeout_error'],
  ] as const)('answers %s as %i %s', (code, status, type) => {
    const rendered = renderAnthropicError(new GatewayException(code), 'req_abc');
    expect(rendered.status).toBe(status);
    expect(rendered.body).toEqual({
      type: 'error',
      error: { type, message: GATEWAY_ERRORS[code].message },
      request_id: 'req_abc',
    });
    expect(rendered.headers['request-id']).toBe('req_abc');
  });

  it('has an Anthropic type for every gateway code', () => {
    const known = new Set([
      'invalid_request_error',
      'authentication_error',
      'permission_error',
      'not_found_error',
      'request_too_large',
      'rate_limit_error',
      'api_error',
      'timeout_error',
      'overloaded_error',
    ]);
    for (const code of Object.keys(GATEWAY_ERRORS) as GatewayErrorCode[])
      expect(known).toContain(
        renderAnthropicError(new GatewayException(code), 'r').body.error.type,
      );
  });

  it('names both ways of sending a key when none was sent', () => {
    const rendered = renderAnthropicError(new GatewayException('missing_api_key'), 'r');
    expect(rendered.status).toBe(401);
    expect(rendered.body.error).toEqual({
      type: 'authentication_error',
      message:
        'No API key provided. Send it as "x-api-key: <key>" or "Authorization: Bearer <key>".',
    });
  });

  it('keeps the error headers and tells the SDKs not to retry a spent budget', () => {
    const limited = renderAnthropicError(
      new GatewayException('rate_limit_exceeded', { headers: { 'retry-after': '7' } }),
      'req_1',
    );
    expect(limited.headers).toEqual({ 'retry-after': '7', 'request-id': 'req_1' });
    for (const code of ['budget_exceeded', 'spend_budget_exceeded'] as const) {
      const spent = renderAnthropicError(
        new GatewayException(code, { headers: { 'retry-after': '3600' } }),
        'req_1',
      );
      expect(spent.headers).toEqual({
        'retry-after': '3600',
        'request-id': 'req_1',
        'x-should-retry': 'false',
      });
    }
  });

  it('names the field of a 400 in the message, and says a prompt is too long as Anthropic does', () => {
    const field = new GatewayException('invalid_parameter', {
      param: 'max_tokens',
      message: 'max_tokens: Field required',
    });
    expect(renderAnthropicError(field, 'r').body.error.message).toBe('max_tokens: Field required');
    const tooLong = renderAnthropicError(new GatewayException('context_length_exceeded'), 'r');
    expect(tooLong.body.error.message).toBe(
      "prompt is too long: The request exceeds the model's maximum context length.",
    );
  });
});

describe('asGatewayException', () => {
  it('keeps the gateway errors, maps upstream ones, and hides the rest behind a 500', () => {
    const own = new GatewayException('model_not_found');
    expect(asGatewayException(own)).toBe(own);
    expect(asGatewayException(new UpstreamError('timeout', 'slow')).code).toBe('upstream_timeout');
    expect(asGatewayException(new TypeError('x is undefined')).code).toBe('internal_error');
  });
});
