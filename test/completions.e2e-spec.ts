import OpenAI from 'openai';
import request from 'supertest';
import {
  completion,
  errorResponse,
  FakeOpenAiUpstream,
  hang,
} from './support/upstreams/openai-upstream';
import { startTestApp, TestApp } from './support/test-app';

describe('POST /v1/chat/completions (non-streaming) through an OpenAI-compatible upstream', () => {
  let upstream: FakeOpenAiUpstream;
  let backup: FakeOpenAiUpstream;
  let gateway: TestApp;
  let key: string;

  beforeAll(async () => {
    upstream = await FakeOpenAiUpstream.start();
    backup = await FakeOpenAiUpstream.start();
    gateway = await startTestApp({
      models: {
        'alpha-k3': [upstream.deployment('gpt-upstream-1', { api_key: 'sk-upstream-secret' })],
        'beta-v4-pro-0813': [
          upstream.deployment('primary-model', { api_key: 'sk-upstream-secret', name: 'primary' }),
          backup.deployment('backup-model', {
            api_key: 'sk-backup-secret',
            name: 'backup',
            weight: 0,
          }),
        ],
        'beta-v4-flash-0731': [{ provider: 'mock' }],
      },
    });
    key = await gateway.createKey();
  });

  afterAll(async () => {
    await gateway.close();
    await upstream.close();
    await backup.close();
  });

  it('answers the official openai client with the contract shape', async () => {
    upstream.next(
      completion('Paris is the capital of France.', { prompt_tokens: 14, completion_tokens: 7 }),
    );
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const before = Math.floor(Date.now() / 1000);

    const result = await client.chat.completions.create({
      model: 'alpha-k3',
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
      temperature: 0.2,
      max_tokens: 50,
    });

    expect(result.id).toMatch(/^chatcmpl_[0-9a-f]{24}$/);
    expect(result.object).toBe('chat.completion');
    expect(result.created).toBeGreaterThanOrEqual(before);
    expect(result.created).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(result.model).toBe('alpha-k3');
    expect(result.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Paris is the capital of France.' },
        finish_reason: 'stop',
        logprobs: null,
      },
    ]);
    expect(result.usage).toEqual({ prompt_tokens: 14, completion_tokens: 7, total_tokens: 21 });

    // What reached the provider: its own model id and key, the messages, the passed-through fields.
    expect(upstream.lastRequest.path).toBe('/v1/chat/completions');
    expect(upstream.lastRequest.headers.authorization).toBe('Bearer sk-upstream-secret');
    expect(upstream.lastRequest.body).toEqual({
      model: 'gpt-upstream-1',
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
      temperature: 0.2,
      max_tokens: 50,
    });
  });

  it('answers 200 (not 201) with an x-request-id, over raw HTTP', async () => {
    upstream.next(completion('ok'));
    const response = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key}`)
      .send({ model: 'alpha-k3', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(upstream.lastRequest.headers['x-request-id']).toBe(response.headers['x-request-id']);
  });

  it('keeps a well-formed client x-request-id', async () => {
    upstream.next(completion('ok'));
    const response = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key}`)
      .set('x-request-id', 'trace-abc.123')
      .send({ model: 'alpha-k3', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.headers['x-request-id']).toBe('trace-abc.123');
  });

  it('passes the matrix fields through and drops the others, never failing on unknown fields', async () => {
    upstream.next(completion('ok'));
    const response = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key}`)
      .send({
        model: 'alpha-k3',
        messages: [{ role: 'user', content: 'hi', some_unknown_message_field: true }],
        top_p: 0.9,
        stop: ['\n\n'],
        seed: 42,
        user: 'end-user-7',
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
        response_format: { type: 'json_object' },
        tools: [
          {
            type: 'function',
            function: { name: 'lookup', parameters: { type: 'object', properties: {} } },
          },
        ],
        tool_choice: 'auto',
        n: 3,
        logprobs: true,
        metadata: { team: 'x' },
        totally_unknown_field: { nested: true },
      });
    expect(response.status).toBe(200);
    expect(upstream.lastRequest.body).toEqual({
      model: 'gpt-upstream-1',
      messages: [{ role: 'user', content: 'hi' }],
      top_p: 0.9,
      stop: ['\n\n'],
      seed: 42,
      user: 'end-user-7',
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      response_format: { type: 'json_object' },
      tools: [
        {
          type: 'function',
          function: { name: 'lookup', parameters: { type: 'object', properties: {} } },
        },
      ],
      tool_choice: 'auto',
      n: 3,
      logprobs: true,
    });
  });

  it('relays tool calls from the provider', async () => {
    const toolCalls = [
      { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
    ];
    upstream.next((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 1,
          model: req.body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: null, tool_calls: toolCalls },
              finish_reason: 'tool_calls',
            },
          ],
          usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
        }),
      );
    });
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const result = await client.chat.completions.create({
      model: 'alpha-k3',
      messages: [{ role: 'user', content: 'look it up' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
    });
    expect(result.choices[0].finish_reason).toBe('tool_calls');
    expect(result.choices[0].message.tool_calls).toEqual(toolCalls);
  });

  it('fails over to the next deployment when the first one is down', async () => {
    upstream.next(errorResponse(503, { error: { message: 'overloaded', type: 'server_error' } }));
    backup.next(completion('from backup'));
    const response = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key}`)
      .send({ model: 'beta-v4-pro-0813', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(response.body.choices[0].message.content).toBe('from backup');
    expect(response.body.model).toBe('beta-v4-pro-0813');
    expect(backup.lastRequest.body.model).toBe('backup-model');
    expect(backup.lastRequest.headers.authorization).toBe('Bearer sk-backup-secret');
  });

  it('does not fail over on a request the provider rejects as invalid', async () => {
    const backupCalls = backup.requests.length;
    upstream.next(
      errorResponse(400, {
        error: { message: 'bad stop sequence', type: 'invalid_request_error' },
      }),
    );
    const response = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key}`)
      .send({ model: 'beta-v4-pro-0813', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('upstream_bad_request');
    expect(backup.requests.length).toBe(backupCalls);
  });

  it('serves the built-in mock deployment', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const result = await client.chat.completions.create({
      model: 'beta-v4-flash-0731',
      messages: [{ role: 'user', content: 'ping' }],
    });
    expect(result.choices[0].message.content).toBe(
      'This is a mock answer from beta-v4-flash-0731. You said: "ping"',
    );
    expect(result.usage?.completion_tokens).toBe(10);
    const limited = await client.chat.completions.create({
      model: 'beta-v4-flash-0731',
      messages: [{ role: 'user', content: 'ping' }],
      max_tokens: 3,
    });
    expect(limited.choices[0].message.content).toBe('This is a ');
    expect(limited.choices[0].finish_reason).toBe('length');
  });

  it('aborts the upstream request when the client goes away', async () => {
    upstream.next(hang());
    const aborted = upstream.waitForAbort();
    const controller = new AbortController();
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const pending = client.chat.completions.create(
      { model: 'alpha-k3', messages: [{ role: 'user', content: 'take your time' }] },
      { signal: controller.signal },
    );
    while (upstream.lastRequest?.body?.messages?.[0]?.content !== 'take your time')
      await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await expect(pending).rejects.toThrow();
    await aborted;
    expect(upstream.abortedRequests).toBeGreaterThanOrEqual(1);
  });
  it('forwards content parts and every role real clients send, unchanged', async () => {
    upstream.next(completion('seen'));
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'system', content: 'You see images.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          {
            type: 'image_url',
            image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' },
          },
          { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
          {
            type: 'file',
            file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot.' }] },
      { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{}' } },
      { role: 'function', name: 'lookup', content: '{"found":true}' },
      { role: 'user', content: [{ type: 'text', text: 'Try again.' }] },
    ];
    const result = await client.chat.completions.create({ model: 'alpha-k3', messages });
    expect(result.choices[0].message.content).toBe('seen');
    expect(upstream.lastRequest.body.messages).toEqual(messages);
  });

  it('counts the text parts of array content in token estimates', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const result = await client.chat.completions.create({
      model: 'beta-v4-flash-0731',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'ping' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(4000)}` } },
            { type: 'text', text: 'pong' },
          ],
        },
      ],
    });
    // The mock estimates 4 characters a token: "ping\npong" is 9 characters, the image counts nothing.
    expect(result.usage?.prompt_tokens).toBe(3);
    expect(result.choices[0].message.content).toContain('You said: "ping\npong"');
  });
});
