import type { Express } from 'express';
import OpenAI from 'openai';
import request from 'supertest';
import { schemaValidator, type SchemaValidator } from '../src/openapi/schema-validator.fixture';
import { startTestApp, TestApp } from './support/test-app';

/** A path with its parameters unnamed (`/v1/models/{}`): the document names them its own way. */
const unnamed = (path: string) => path.replace(/:\w+|\{\w+\}/g, '{}');

/**
 * The routes Express serves, as `method /path/{}`. Read from the app's router (Express 5's
 * `app.router`), where Nest registers every controller route, so that a route added without its
 * entry in the document fails the test below.
 */
function servedRoutes(http: Express): string[] {
  const routes = new Set<string>();
  for (const layer of http.router.stack) {
    const route = layer.route as { path: unknown; methods: Record<string, boolean> } | undefined;
    if (!route || typeof route.path !== 'string') continue;
    for (const method of Object.keys(route.methods)) routes.add(`${method} ${unnamed(route.path)}`);
  }
  return [...routes].sort();
}

describe('GET /openapi.json', () => {
  let gateway: TestApp;
  let document: { paths: Record<string, Record<string, unknown>>; components: { schemas: object } };
  let validate: SchemaValidator;

  beforeAll(async () => {
    gateway = await startTestApp();
    document = (await request(gateway.url).get('/openapi.json')).body;
    validate = schemaValidator(document.components);
  });
  afterAll(() => gateway.close());

  it('serves the OpenAPI 3.1 document without a key', async () => {
    const response = await request(gateway.url).get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body.openapi).toBe('3.1.0');
    expect(Object.keys(response.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/chat/completions',
        '/v1/models',
        '/v1/models/{model}',
        '/admin/keys',
        '/admin/config/reload',
      ]),
    );
    expect(response.body.components.schemas.ChatCompletionRequest.required).toEqual([
      'model',
      'messages',
    ]);
  });

  it('documents every route the gateway serves under /v1, with its method', () => {
    const served = servedRoutes(gateway.app.getHttpAdapter().getInstance() as Express).filter(
      (route) => route.split(' ')[1].startsWith('/v1/'),
    );
    // The routes of every public controller, so that the check below cannot pass on an empty list.
    expect(served).toEqual(
      expect.arrayContaining([
        'post /v1/chat/completions',
        'post /v1/messages',
        'post /v1/messages/count_tokens',
        'post /v1/responses',
        'get /v1/responses/{}',
        'delete /v1/responses/{}',
        'get /v1/responses/{}/input_items',
        'post /v1/embeddings',
        'get /v1/models',
        'get /v1/models/{}',
      ]),
    );
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method} ${unnamed(path)}`),
      ),
    );
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
  });

  it('describes what the running gateway really answers: completions, chunks, models and errors', async () => {
    const key = await gateway.createKey();
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const body = { model: 'alpha-k3', messages: [{ role: 'user' as const, content: 'hi' }] };
    validate.assert('ChatCompletionRequest', body);
    validate.assert('ChatCompletion', await client.chat.completions.create(body));
    const stream = await client.chat.completions.create({
      ...body,
      stream: true,
      stream_options: { include_usage: true },
    });
    let chunks = 0;
    for await (const chunk of stream) {
      validate.assert('ChatCompletionChunk', chunk);
      chunks += 1;
    }
    expect(chunks).toBeGreaterThan(1);
    const models = await request(gateway.url)
      .get('/v1/models')
      .set('Authorization', `Bearer ${key}`);
    validate.assert('ModelList', models.body);
    validate.assert(
      'Model',
      (await request(gateway.url).get('/v1/models/alpha-k3').set('Authorization', `Bearer ${key}`))
        .body,
    );
    for (const error of [
      await request(gateway.url).get('/v1/models'),
      await request(gateway.url).get('/v1/models/nope').set('Authorization', `Bearer ${key}`),
      await request(gateway.url)
        .post('/v1/chat/completions')
        .set('Authorization', `Bearer ${key}`)
        .send({ model: 'alpha-k3', messages: [[]] }),
    ]) {
      expect(error.status).toBeGreaterThanOrEqual(400);
      validate.assert('ErrorEnvelope', error.body);
    }
  });

  it('describes what /v1/responses and the stored responses answer', async () => {
    const key = await gateway.createKey();
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const body = {
      model: 'alpha-k3',
      instructions: 'Be brief.',
      input: [{ role: 'user' as const, content: 'hi' }],
      metadata: { case: 'openapi' },
    };
    validate.assert('CreateResponseRequest', body);
    const response = await client.responses.create(body);
    validate.assert('ResponseObject', response);
    const stream = await client.responses.create({ ...body, stream: true });
    const types: string[] = [];
    for await (const event of stream) {
      validate.assert('ResponseStreamEvent', event);
      types.push(event.type);
    }
    expect(types[types.length - 1]).toBe('response.completed');

    const stored = (path: string) =>
      request(gateway.url).get(`/v1/responses/${path}`).set('Authorization', `Bearer ${key}`);
    validate.assert('ResponseObject', (await stored(response.id)).body);
    const items = await stored(`${response.id}/input_items?order=asc&limit=1`);
    expect(items.body.data).toHaveLength(1);
    validate.assert('ResponseInputItemList', items.body);
    const deleted = await request(gateway.url)
      .delete(`/v1/responses/${response.id}`)
      .set('Authorization', `Bearer ${key}`);
    validate.assert('ResponseDeleted', deleted.body);
    for (const error of [
      await stored(response.id),
      await stored('resp_unknown/input_items?limit=0'),
      await request(gateway.url)
        .post('/v1/responses')
        .set('Authorization', `Bearer ${key}`)
        .send({ model: 'alpha-k3', input: 'hi', tools: [{ type: 'web_search' }] }),
    ]) {
      expect(error.status).toBeGreaterThanOrEqual(400);
      validate.assert('ErrorEnvelope', error.body);
    }
  });
});
