import OpenAI from 'openai';
import request from 'supertest';
import { startTestApp, TestApp } from './support/test-app';

/** GET /v1/models and /v1/models/{id} (README "Models API"), through the official openai client. */
describe('Models API (e2e)', () => {
  let gateway: TestApp;
  let everything: OpenAI;
  let restricted: OpenAI;

  beforeAll(async () => {
    gateway = await startTestApp({
      models: {
        'alpha-k3': [{ provider: 'mock' }],
        'beta-v4-pro-0813': [
          { provider: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key: 'sk-x', model: 'm' },
          { provider: 'mock' },
        ],
        'meta/llama-3': [{ provider: 'mock' }],
      },
    });
    everything = new OpenAI({
      apiKey: await gateway.createKey(),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    restricted = new OpenAI({
      apiKey: await gateway.createKey({ allowedModels: ['alpha-k3', 'meta/llama-3'] }),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('lists every public model for a key without a model restriction, in OpenAI list shape', async () => {
    const page = await everything.models.list();
    const now = Math.floor(Date.now() / 1000);
    expect(page.data.map((model) => model.id)).toEqual([
      'alpha-k3',
      'beta-v4-pro-0813',
      'meta/llama-3',
    ]);
    for (const model of page.data) {
      expect(Object.keys(model).sort()).toEqual(['created', 'id', 'object', 'owned_by']);
      expect(model.object).toBe('model');
      expect(model.created).toBeGreaterThan(now - 600);
      expect(model.created).toBeLessThanOrEqual(now);
    }
    expect(page.data.find((model) => model.id === 'beta-v4-pro-0813')?.owned_by).toBe(
      'openai,mock',
    );
    const raw = await request(gateway.url)
      .get('/v1/models')
      .set('Authorization', `Bearer ${everything.apiKey}`);
    expect(raw.status).toBe(200);
    expect(raw.body.object).toBe('list');
  });

  it('lists only the models a restricted key may use', async () => {
    const page = await restricted.models.list();
    expect(page.data.map((model) => model.id)).toEqual(['alpha-k3', 'meta/llama-3']);
  });

  it('retrieves one model, also one whose id holds a slash', async () => {
    const model = await restricted.models.retrieve('alpha-k3');
    expect(model).toEqual({
      id: 'alpha-k3',
      object: 'model',
      created: expect.any(Number),
      owned_by: 'mock',
    });
    expect((await restricted.models.retrieve('meta/llama-3')).id).toBe('meta/llama-3');
  });

  it('answers 404 model_not_found for an unknown model and for one the key may not use', async () => {
    for (const id of ['no-such-model', 'beta-v4-pro-0813']) {
      const error = await restricted.models.retrieve(id).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect((error as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({
        code: 'model_not_found',
        type: 'invalid_request_error',
        source: 'gateway',
      });
    }
  });

  it('answers the 401 envelope without a key', async () => {
    for (const path of ['/v1/models', '/v1/models/alpha-k3']) {
      const response = await request(gateway.url).get(path);
      expect(response.status).toBe(401);
      expect(response.body.error).toMatchObject({
        code: 'missing_api_key',
        type: 'invalid_request_error',
        source: 'gateway',
      });
    }
    const anonymous = new OpenAI({
      apiKey: 'gk-not-a-real-key-0000000000',
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    await expect(anonymous.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
