/** The error envelope's fields, as every error answer carries them. */
export interface EnvelopeFields {
  message: unknown;
  type: unknown;
  param: unknown;
  source: unknown;
}

/** `source` by the error's code: the provider's failures are the upstream ones. */
export const sourceOf = (code: string) =>
  /^(upstream_|context_length)/.test(code) ? 'upstream' : 'gateway';

/**
 * Asserts that `body` is the error envelope with `code` and nothing else:
 * `{ error: { message, type, param, code, source } }`. The other fields are as `expected` gives
 * them (values or matchers); by default a non-empty message, a string type, a null param and the
 * code's own source (sourceOf).
 */
export function expectEnvelope(
  body: unknown,
  code: string,
  expected: Partial<EnvelopeFields> = {},
): void {
  expect(body).toEqual({
    error: {
      message: expect.stringMatching(/^[\s\S]+$/),
      type: expect.any(String),
      param: null,
      code,
      source: sourceOf(code),
      ...expected,
    },
  });
}
