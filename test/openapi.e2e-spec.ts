import Ajv2020 from 'ajv/dist/2020';
import OpenAI from 'openai';
import request from 'supertest';
import { startTestApp, TestApp } from './support/test-app';

describe('GET /openapi.json', () => {
  let gateway: TestApp;
  let validate: (name: string, value: unknown) => boolean;

  beforeAll(async () => {
    gateway = await startTestApp();
    const document = (await request(gateway.url).get('/openapi.json')).body;
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: document.components });
    validate = (name, value) => {
      const check = ajv.getSchema(`doc#/components/schemas/${name}`)!;
      if (check(value)) return true;
      throw new Error(
        `${name}: ${ajv.errorsText(check.errors)} in ${JSON.stringify(value).slice(0, 500)}`,
      );
    };
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

  it('describes what the running gateway really answers: completions, chunks, models and errors', async () => {
    const key = await gateway.createKey();
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const body = { model: 'alpha-k3', messages: [{ role: 'user' as const, content: 'hi' }] };
    expect(validate('ChatCompletionRequest', body)).toBe(true);
    expect(validate('ChatCompletion', await client.chat.completions.create(body))).toBe(true);
    const stream = await client.chat.completions.create({
      ...body,
      stream: true,
      stream_options: { include_usage: true },
    });
    let chunks = 0;
    for await (const chunk of stream) chunks += Number(validate('ChatCompletionChunk', chunk));
    expect(chunks).toBeGreaterThan(1);
    const models = await request(gateway.url)
      .get('/v1/models')
      .set('Authorization', `Bearer ${key}`);
    expect(validate('ModelList', models.body)).toBe(true);
    expect(
      validate(
        'Model',
        (
          await request(gateway.url)
            .get('/v1/models/alpha-k3')
            .set('Authorization', `Bearer ${key}`)
        ).body,
      ),
    ).toBe(true);
    for (const error of [
      await request(gateway.url).get('/v1/models'),
      await request(gateway.url).get('/v1/models/nope').set('Authorization', `Bearer ${key}`),
      await request(gateway.url)
        .post('/v1/chat/completions')
        .set('Authorization', `Bearer ${key}`)
        .send({ model: 'alpha-k3', messages: [[]] }),
    ]) {
      expect(error.status).toBeGreaterThanOrEqual(400);
      expect(validate('ErrorEnvelope', error.body)).toBe(true);
    }
  });
});
