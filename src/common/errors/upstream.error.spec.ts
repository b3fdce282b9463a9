import { parseRetryAfter, upstreamErrorFromStatus } from './upstream.error';

describe('upstream error classification', () => {
  it.each([
    [401, '', 'upstream_auth', 502, 'upstream_auth_failed'],
    [403, '', 'upstream_auth', 502, 'upstream_auth_failed'],
    [429, '', 'rate_limited', 429, 'upstream_rate_limited'],
    [400, '{"error":{"message":"bad"}}', 'bad_request', 400, 'upstream_bad_request'],
    [
      400,
      "This model's maximum context length is 8192 tokens",
      'context_length',
      400,
      'context_length_exceeded',
    ],
    [404, '', 'unavailable', 502, 'upstream_error'],
    [500, '', 'unavailable', 502, 'upstream_error'],
    [503, '', 'unavailable', 502, 'upstream_error'],
    [504, '', 'timeout', 504, 'upstream_timeout'],
  ])('HTTP %i %s -> %s -> %i %s', (status, body, kind, gatewayStatus, code) => {
    const error = upstreamErrorFromStatus(status, body);
    expect(error.kind).toBe(kind);
    const answer = error.toGatewayException();
    expect(answer.status).toBe(gatewayStatus);
    expect(answer.code).toBe(code);
    expect(answer.message).not.toContain(body || '\u0000');
  });

  it('fails over only on provider-side failures', () => {
    expect(upstreamErrorFromStatus(503, '').retryable).toBe(true);
    expect(upstreamErrorFromStatus(429, '').retryable).toBe(true);
    expect(upstreamErrorFromStatus(400, '').retryable).toBe(false);
  });

  it('passes the provider Retry-After on', () => {
    const answer = upstreamErrorFromStatus(429, '', '12').toGatewayException();
    expect(answer.headers).toEqual({ 'retry-after': '12' });
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3);
    expect(parseRetryAfter('0.2', now)).toBe(1);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('garbage', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
