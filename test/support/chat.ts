import request from 'supertest';

/** A chat completion's body: one user message, `hi` unless `content` says otherwise. */
export function chatBody(model = 'alpha-k3', content = 'hi') {
  return { model, messages: [{ role: 'user' as const, content }] };
}

/** Where a gateway listens: a TestApp, or its base URL. */
export type Gateway = { url: string } | string;

/**
 * POST /v1/chat/completions with bearer `key` (supertest, so the answer is read whole): the body
 * is chatBody()'s with `body`'s fields over it; `headers` are sent as well.
 */
export function chat(
  gateway: Gateway,
  key: string,
  body: object = {},
  headers: Record<string, string> = {},
) {
  return request(typeof gateway === 'string' ? gateway : gateway.url)
    .post('/v1/chat/completions')
    .set('Authorization', `Bearer ${key}`)
    .set(headers)
    .send({ ...chatBody(), ...body });
}

/** chat() with other defaults for the body, for a file whose requests all share them. */
export function chatWith(defaults: object) {
  return (gateway: Gateway, key: string, body: object = {}, headers: Record<string, string> = {}) =>
    chat(gateway, key, { ...defaults, ...body }, headers);
}
