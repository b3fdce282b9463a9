import OpenAI from 'openai';
import request from 'supertest';
import {
  anthropicAnswer,
  ANTHROPIC_TEST_KEY,
  FakeAnthropicUpstream,
  invalidRequest,
  overloaded,
  rateLimited,
} from './support/upstreams/anthropic-upstream';
import {
  FakeGeminiUpstream,
  geminiAnswer,
  GEMINI_TEST_KEY,
  invalidArgument,
  unavailable,
} from './support/upstreams/gemini-upstream';
import { startTestApp, TestApp } from './support/test-app';

// The Anthropic and Gemini adapters end to end: the official openai client talks to the gateway,
// the gateway to local servers speaking each provider's wire format byte for byte.

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: {
      type: 'object',
      properties: { location: { type: 'string' } },
      required: ['location'],
    },
  },
};

describe('Anthropic and Gemini deployments', () => {
  let anthropic: FakeAnthropicUpstream;
  let gemini: FakeGeminiUpstream;
  let gateway: TestApp;
  let client: OpenAI;
  let key: string;

  beforeAll(async () => {
    anthropic = await FakeAnthropicUpstream.start();
    gemini = await FakeGeminiUpstream.start();
    gateway = await startTestApp({
      models: {
        'alpha-k3': [anthropic.deployment('claude-sonnet-4-5', { default_max_tokens: 333 })],
        'beta-v4-pro-0813': [gemini.deployment('gemini-2.5-flash')],
        'beta-v4-flash-0731': [{ provider: 'mock' }],
      },
    });
    key = await gateway.createKey();
    client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await gateway.close();
    await anthropic.close();
    await gemini.close();
  });

  describe('anthropic', () => {
    it('answers the openai client; system goes top-level, max_tokens defaults to default_max_tokens', async () => {
      anthropic.next(
        anthropicAnswer({ text: ['Paris.'], usage: { input_tokens: 21, output_tokens: 3 } }),
      );
      const result = await client.chat.completions.create({
        model: 'alpha-k3',
        messages: [
          { role: 'system', content: 'Answer briefly.' },
          { role: 'user', content: 'Capital of France?' },
        ],
      });
      expect(result.choices).toEqual([
        {
          index: 0,
          message: { role: 'assistant', content: 'Paris.' },
          finish_reason: 'stop',
          logprobs: null,
        },
      ]);
      expect(result.usage).toMatchObject({
        prompt_tokens: 21,
        completion_tokens: 3,
        total_tokens: 24,
      });
      const sent = anthropic.lastRequest;
      expect(sent.path).toBe('/v1/messages');
      expect(sent.headers['x-api-key']).toBe(ANTHROPIC_TEST_KEY);
      expect(sent.headers['anthropic-version']).toBe('2023-06-01');
      expect(sent.headers.authorization).toBeUndefined();
      expect(sent.body).toMatchObject({
        model: 'claude-sonnet-4-5',
        max_tokens: 333,
        system: 'Answer briefly.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] }],
      });
    });

    it('sends the client max_tokens when given', async () => {
      await client.chat.completions.create({
        model: 'alpha-k3',
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 17,
      });
      expect(anthropic.lastRequest.body.max_tokens).toBe(17);
    });

    it('maps tool_use blocks to tool_calls with JSON-string arguments', async () => {
      anthropic.next(
        anthropicAnswer({
          text: ['Let me check.'],
          toolUses: [{ id: 'toolu_1', name: 'get_weather', input: { location: 'Paris' } }],
        }),
      );
      const result = await client.chat.completions.create({
        model: 'alpha-k3',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [weatherTool],
      });
      const choice = result.choices[0];
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.tool_calls).toEqual([
        {
          id: 'toolu_1',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
        },
      ]);
      expect(anthropic.lastRequest.body.tools).toEqual([
        {
          name: 'get_weather',
          description: 'Current weather',
          input_schema: weatherTool.function.parameters,
        },
      ]);
    });

    it('streams text split at awkward bytes, with the include_usage chunk', async () => {
      anthropic.next(
        anthropicAnswer({
          text: ['Héllo', ', wörld', ' ✓'],
          chunking: 'awkward',
          usage: { input_tokens: 8, output_tokens: 5 },
        }),
      );
      const stream = await client.chat.completions.create({
        model: 'alpha-k3',
        messages: [{ role: 'user', content: 'Greet me' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
      expect(text).toBe('Héllo, wörld ✓');
      expect(
        chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason,
      ).toBe('stop');
      const last = chunks[chunks.length - 1];
      expect(last.choices).toEqual([]);
      expect(last.usage).toEqual({ prompt_tokens: 8, completion_tokens: 5, total_tokens: 13 });
      expect(anthropic.lastRequest.body.stream).toBe(true);
    });

    it('streams tool calls that the openai client assembles intact', async () => {
      anthropic.next(
        anthropicAnswer({
          toolUses: [
            { id: 'toolu_2', name: 'get_weather', input: { location: 'São Paulo', unit: 'c' } },
          ],
          chunking: 'awkward',
        }),
      );
      const stream = client.chat.completions.stream({
        model: 'alpha-k3',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [weatherTool],
      });
      const final = await stream.finalChatCompletion();
      expect(final.choices[0].finish_reason).toBe('tool_calls');
      expect(final.choices[0].message.tool_calls).toEqual([
        {
          id: 'toolu_2',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"location":"São Paulo","unit":"c"}' },
        },
      ]);
    });

    it('ends a stream with an error frame when Anthropic sends an error event after the first token', async () => {
      anthropic.next(anthropicAnswer({ text: ['First', ' second'], errorAfter: 1 }));
      const before = anthropic.requests.length;
      const stream = await client.chat.completions.create({
        model: 'alpha-k3',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
      });
      const received: string[] = [];
      const failure = await (async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      })().catch((error: unknown) => error);
      expect(received.join('')).toBe('First');
      expect(failure).toBeInstanceOf(OpenAI.APIError);
      expect((failure as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
        code: 'upstream_overloaded',
      });
      // Never a second upstream request once bytes reached the client.
      expect(anthropic.requests.length).toBe(before + 1);
    });

    it('relays a 429 with its Retry-After', async () => {
      anthropic.next(rateLimited(7));
      const response = await request(gateway.url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model: 'alpha-k3', messages: [{ role: 'user', content: 'Hi' }] });
      expect(response.status).toBe(429);
      expect(response.headers['retry-after']).toBe('7');
      expect(response.body.error.code).toBe('upstream_rate_limited');
    });

    it('answers an overloaded 529 as a 503 upstream_overloaded with Retry-After', async () => {
      anthropic.next(overloaded());
      const response = await request(gateway.url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model: 'alpha-k3', messages: [{ role: 'user', content: 'Hi' }] });
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBeDefined();
      expect(response.body.error).toMatchObject({
        code: 'upstream_overloaded',
        type: 'server_error',
      });
    });

    it('answers an invalid_request_error as a 400', async () => {
      anthropic.next(invalidRequest('messages.0.content: bad'));
      const response = await request(gateway.url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model: 'alpha-k3', messages: [{ role: 'user', content: 'Hi' }], stream: true });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('upstream_bad_request');
    });
  });

  describe('gemini', () => {
    it('answers the openai client from generateContent', async () => {
      gemini.next(
        geminiAnswer({
          text: ['Bonjour.'],
          usage: { promptTokenCount: 6, candidatesTokenCount: 2 },
        }),
      );
      const result = await client.chat.completions.create({
        model: 'beta-v4-pro-0813',
        messages: [
          { role: 'system', content: 'Speak French.' },
          { role: 'user', content: 'Hello' },
        ],
        temperature: 0.3,
        max_tokens: 40,
      });
      expect(result.choices).toEqual([
        {
          index: 0,
          message: { role: 'assistant', content: 'Bonjour.' },
          finish_reason: 'stop',
          logprobs: null,
        },
      ]);
      expect(result.usage).toMatchObject({ prompt_tokens: 6, completion_tokens: 2 });
      const sent = gemini.lastRequest;
      expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
      expect(sent.headers['x-goog-api-key']).toBe(GEMINI_TEST_KEY);
      expect(sent.body).toMatchObject({
        systemInstruction: { parts: [{ text: 'Speak French.' }] },
        contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
        generationConfig: { temperature: 0.3, maxOutputTokens: 40 },
      });
    });

    it('maps functionCall parts to tool_calls', async () => {
      gemini.next(
        geminiAnswer({ functionCalls: [{ name: 'get_weather', args: { location: 'Rome' } }] }),
      );
      const result = await client.chat.completions.create({
        model: 'beta-v4-pro-0813',
        messages: [{ role: 'user', content: 'Weather in Rome?' }],
        tools: [weatherTool],
      });
      const [call] = result.choices[0].message.tool_calls ?? [];
      expect(result.choices[0].finish_reason).toBe('tool_calls');
      expect(call).toMatchObject({
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Rome"}' },
      });
      expect(gemini.lastRequest.body.tools).toEqual([
        {
          functionDeclarations: [
            expect.objectContaining({ name: 'get_weather', description: 'Current weather' }),
          ],
        },
      ]);
    });

    it('streams from streamGenerateContent?alt=sse split at awkward bytes, usage included', async () => {
      gemini.next(
        geminiAnswer({
          text: ['Ciao', ' à ', 'tutti'],
          chunking: 'awkward',
          usage: { promptTokenCount: 4, candidatesTokenCount: 3 },
        }),
      );
      const stream = await client.chat.completions.create({
        model: 'beta-v4-pro-0813',
        messages: [{ role: 'user', content: 'Greet' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
        'Ciao à tutti',
      );
      expect(chunks[chunks.length - 1].usage).toEqual({
        prompt_tokens: 4,
        completion_tokens: 3,
        total_tokens: 7,
      });
      expect(gemini.lastRequest.path).toBe(
        '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      );
    });

    it('streams function calls that the openai client assembles intact', async () => {
      gemini.next(
        geminiAnswer({
          text: ['Checking.'],
          functionCalls: [{ name: 'get_weather', args: { location: 'Oslo' } }],
        }),
      );
      const final = await client.chat.completions
        .stream({
          model: 'beta-v4-pro-0813',
          messages: [{ role: 'user', content: 'Weather?' }],
          tools: [weatherTool],
        })
        .finalChatCompletion();
      expect(final.choices[0].finish_reason).toBe('tool_calls');
      expect(final.choices[0].message.content).toBe('Checking.');
      expect(final.choices[0].message.tool_calls?.[0].function).toMatchObject({
        name: 'get_weather',
        arguments: '{"location":"Oslo"}',
      });
    });

    it('answers UNAVAILABLE as a 503 and INVALID_ARGUMENT as a 400', async () => {
      gemini.next(unavailable(), invalidArgument());
      const send = () =>
        request(gateway.url)
          .post('/v1/chat/completions')
          .set('authorization', `Bearer ${key}`)
          .send({ model: 'beta-v4-pro-0813', messages: [{ role: 'user', content: 'Hi' }] });
      const first = await send();
      expect(first.status).toBe(503);
      expect(first.body.error.code).toBe('upstream_overloaded');
      const second = await send();
      expect(second.status).toBe(400);
      expect(second.body.error.code).toBe('upstream_bad_request');
    });
  });
});
