import request from 'supertest';
import { startTestApp, TestApp } from './support/test-app';

describe('GET /openapi.json', () => {
  let gateway: TestApp;
  beforeAll(async () => {
    gateway = await startTestApp();
  });
  afterAll(() => gateway.close());

  it('serves the OpenAPI 3.1 document without a key', async () => {
    const response = await request(gateway.url).get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body.openapi).toBe('3.1.0');
    expect(Object.keys(response.body.paths)).toEqual(expect.arrayContaining(['/v1/chat/completions', '/admin/keys', '/admin/config/reload']));
    expect(response.body.components.schemas.ChatCompletionRequest.required).toEqual(['model', 'messages']);
  });
});
