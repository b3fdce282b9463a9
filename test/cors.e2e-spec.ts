import request from 'supertest';
import { startTestApp, TestApp } from './support/test-app';

const ALLOWED = 'https://app.example.com';

async function preflight(url: string, origin: string) {
  return request(url)
    .options('/v1/chat/completions')
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST')
    .set('Access-Control-Request-Headers', 'authorization,content-type');
}

describe('CORS with CORS_ORIGINS set', () => {
  let gateway: TestApp;
  beforeAll(async () => {
    gateway = await startTestApp({
      env: { CORS_ORIGINS: `${ALLOWED}, https://other.example.org` },
    });
  });
  afterAll(() => gateway.close());

  it('answers a preflight from a listed origin with that origin and authorization + content-type allowed', async () => {
    const response = await preflight(gateway.url, ALLOWED);
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    const allowed = String(response.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(',');
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type']));
    expect(String(response.headers['access-control-allow-methods'])).toContain('POST');
  });

  it('allows the headers the official openai client sends from a browser (x-stainless-*)', async () => {
    const response = await request(gateway.url)
      .options('/v1/chat/completions')
      .set('Origin', ALLOWED)
      .set('Access-Control-Request-Method', 'POST')
      .set(
        'Access-Control-Request-Headers',
        'authorization,content-type,x-stainless-os,x-stainless-retry-count,x-stainless-timeout',
      );
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    const allowed = String(response.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(',');
    expect(allowed).toEqual(
      expect.arrayContaining([
        'authorization',
        'x-stainless-os',
        'x-stainless-retry-count',
        'x-stainless-timeout',
      ]),
    );
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('gives an unlisted origin no access-control-allow-origin', async () => {
    const response = await preflight(gateway.url, 'https://evil.example.net');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('adds the origin header to the real request too, error answers included', async () => {
    const key = await gateway.createKey();
    const ok = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Origin', ALLOWED)
      .set('Authorization', `Bearer ${key}`)
      .send({ model: 'alpha-k3', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(ALLOWED);
    const exposed = String(ok.headers['access-control-expose-headers']).split(',');
    expect(exposed).toEqual(
      expect.arrayContaining([
        'x-request-id',
        'request-id',
        'x-should-retry',
        'retry-after',
        'x-ratelimit-remaining-requests',
        'x-gateway-deployment',
        'x-gateway-overhead-ms',
        'x-gateway-cost-usd',
      ]),
    );
    const unauthorized = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Origin', ALLOWED)
      .send({});
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['access-control-allow-origin']).toBe(ALLOWED);
  });
});

describe('CORS without CORS_ORIGINS', () => {
  let gateway: TestApp;
  beforeAll(async () => {
    gateway = await startTestApp({ env: { CORS_ORIGINS: '' } });
  });
  afterAll(() => gateway.close());

  it('sends no CORS header at all', async () => {
    const response = await preflight(gateway.url, ALLOWED);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(response.headers['access-control-allow-headers']).toBeUndefined();
  });
});
