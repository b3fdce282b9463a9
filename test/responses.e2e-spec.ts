import OpenAI from 'openai';
import { anthropicAnswer, FakeAnthropicUpstream } from './support/upstreams/anthropic-upstream';
import { FakeGeminiUpstream, geminiAnswer } from './support/upstreams/gemini-upstream';
import {
  completion,
  errorResponse,
  FakeOpenAiUpstream,
  streamAnswer,
  toolCallAnswer,
} from './support/upstreams/openai-upstream';
import type { UpstreamHandler } from './support/upstreams/scripted-upstream';
import { Client } from 'pg';
import { MetricsService } from '../src/metrics/metrics.service';
import { eventually } from './support/eventually';
import { namedEvents } from './support/sse-client';
import { startProviderFakes, type ProviderFakes } from './support/upstreams/provider-fakes';
import { startTestApp, TestApp } from './support/test-app';

// POST /v1/responses with the official openai client, against fake upstreams speaking OpenAI's,
// Anthropic's and Gemini's wire formats: the same request as JSON and streamed gives the same
// response, tools come back as function and custom tool calls, errors keep their envelope.

const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n';
const TOOLS: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: false,
  },
  { type: 'custom', name: 'apply_patch', description: 'Edit files with a patch.' },
];

interface Provider {
  model: string;
  /** The upstream answering "Hello there." with 11 prompt and 4 completion tokens. */
  text: () => UpstreamHandler;
  /** The upstream calling get_weather (Oslo) and apply_patch (PATCH). */
  calls: () => UpstreamHandler;
  upstream: () => { requests: Array<{ body: any }>; next(...h: UpstreamHandler[]): unknown };
}

describe('POST /v1/responses', () => {
  let fakes: ProviderFakes;
  let openai: FakeOpenAiUpstream;
  let anthropic: FakeAnthropicUpstream;
  let gemini: FakeGeminiUpstream;
  let gateway: TestApp;
  let client: OpenAI;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    fakes = await startProviderFakes();
    ({ openai, anthropic, gemini } = fakes);
    gateway = await startTestApp({
      models: {
        'gpt-r': [openai.deployment('gpt-5.1', { price: { input: '1.00', output: '2.00' } })],
        'claude-r': [anthropic.deployment('claude-sonnet-4-5')],
        'gemini-r': [gemini.deployment('gemini-2.5-flash')],
        'failover-r': [
          openai.deployment('first', { name: 'failing-first' }),
          openai.deployment('second', { name: 'healthy-second', weight: 0 }),
        ],
      },
      aliases: { 'codex-*': 'gpt-r' },
      env: { SSE_HEARTBEAT_MS: '0', USAGE_FLUSH_INTERVAL_MS: '50' },
    });
    ({ id: keyId, secret: key } = await gateway.createKeyWithId());
    client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await gateway?.close();
    await fakes?.close();
  });

  const providers: Record<string, Provider> = {
    openai: {
      model: 'gpt-r',
      text: () => (request, response) =>
        request.body.stream
          ? streamAnswer({
              pieces: ['Hello', ' there.'],
              usage: { prompt_tokens: 11, completion_tokens: 4 },
            })(request, response, undefined as never)
          : completion('Hello there.', { prompt_tokens: 11, completion_tokens: 4 })(
              request,
              response,
              undefined as never,
            ),
      calls: () =>
        toolCallAnswer([
          { id: 'call_w1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { id: 'call_p1', name: 'apply_patch', arguments: JSON.stringify({ input: PATCH }) },
        ]),
      upstream: () => openai,
    },
    anthropic: {
      model: 'claude-r',
      text: () =>
        anthropicAnswer({
          text: ['Hello', ' there.'],
          usage: { input_tokens: 11, output_tokens: 4 },
        }),
      calls: () =>
        anthropicAnswer({
          toolUses: [
            { id: 'toolu_w1', name: 'get_weather', input: { city: 'Oslo' } },
            { id: 'toolu_p1', name: 'apply_patch', input: { input: PATCH } },
          ],
        }),
      upstream: () => anthropic,
    },
    gemini: {
      model: 'gemini-r',
      text: () =>
        geminiAnswer({
          text: ['Hello', ' there.'],
          usage: { promptTokenCount: 11, candidatesTokenCount: 4 },
        }),
      calls: () =>
        geminiAnswer({
          functionCalls: [
            { name: 'get_weather', args: { city: 'Oslo' } },
            { name: 'apply_patch', args: { input: PATCH } },
          ],
        }),
      upstream: () => gemini,
    },
  };

  const summary = (response: OpenAI.Responses.Response) => ({
    status: response.status,
    text: response.output_text,
    types: response.output.map((item) => item.type),
    usage: response.usage,
  });

  describe.each(Object.entries(providers))('%s deployment', (_name, provider) => {
    it('answers as JSON and as a stream with the same text, items, status and usage', async () => {
      provider.upstream().next(provider.text(), provider.text());
      const body = { model: provider.model, input: 'Say hello.', store: false };
      const json = await client.responses.create(body);
      const streamed = await client.responses.stream(body).finalResponse();
      expect(json).toMatchObject({
        object: 'response',
        id: expect.stringMatching(/^resp_/),
        model: provider.model,
        status: 'completed',
        store: false,
        output: [
          {
            type: 'message',
            id: expect.stringMatching(/^msg_/),
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Hello there.', annotations: [] }],
          },
        ],
      });
      expect(json.usage).toMatchObject({ input_tokens: 11, output_tokens: 4, total_tokens: 15 });
      expect(summary(streamed)).toEqual(summary(json));
    });

    it('returns function calls with the upstream call ids, and custom calls with the raw input', async () => {
      provider.upstream().next(provider.calls(), provider.calls());
      const body = {
        model: provider.model,
        input: 'Weather, then a file.',
        tools: TOOLS,
        store: false,
      };
      for (const response of [
        await client.responses.create(body),
        await client.responses.stream(body).finalResponse(),
      ]) {
        // toMatchObject: the SDK adds parsed_arguments to a streamed function call.
        expect(response.output).toHaveLength(2);
        expect(response.output).toMatchObject([
          {
            type: 'function_call',
            id: expect.stringMatching(/^fc_/),
            call_id: expect.any(String),
            name: 'get_weather',
            arguments: '{"city":"Oslo"}',
            status: 'completed',
          },
          {
            type: 'custom_tool_call',
            id: expect.stringMatching(/^ctc_/),
            call_id: expect.any(String),
            name: 'apply_patch',
            input: PATCH,
          },
        ]);
      }
      const sent = provider.upstream().requests.at(-1)!.body;
      const names = JSON.stringify(sent.tools);
      expect(names).toContain('get_weather');
      expect(names).toContain('apply_patch');
      if (provider.model === 'gpt-r') {
        expect(sent.tools[1].function.parameters.required).toEqual(['input']);
        expect(openai.requests.at(-2)!.body.tools).toEqual(sent.tools);
      }
    });

    it('sends an image input to the provider', async () => {
      provider.upstream().next(provider.text());
      const image =
        'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==';
      await client.responses.create({
        model: provider.model,
        store: false,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is this?' },
              { type: 'input_image', image_url: image, detail: 'auto' },
            ],
          },
        ],
      });
      const sent = JSON.stringify(provider.upstream().requests.at(-1)!.body);
      expect(sent).toContain('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ');
      expect(sent).toContain('What is this?');
    });
  });

  it('asks for a JSON schema output and reads the answer', async () => {
    openai.next(completion('{"city":"Oslo","temp":3}'));
    gemini.next(geminiAnswer({ text: ['{"city":"Oslo","temp":3}'] }));
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, temp: { type: 'number' } },
      required: ['city', 'temp'],
      additionalProperties: false,
    };
    const text = {
      format: { type: 'json_schema' as const, name: 'weather', schema, strict: true },
    };
    for (const model of ['gpt-r', 'gemini-r']) {
      const response = await client.responses.create({
        model,
        input: 'Weather?',
        text,
        store: false,
      });
      expect(JSON.parse(response.output_text)).toEqual({ city: 'Oslo', temp: 3 });
      expect(response.text).toEqual(text);
    }
    expect(openai.lastRequest.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'weather', schema, strict: true },
    });
    expect(gemini.lastRequest.body.generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });

  it('is incomplete when max_output_tokens cut the answer, and carries its cost as JSON', async () => {
    openai.next(
      completion('Once upon a', { prompt_tokens: 1_000_000, completion_tokens: 3 }, 'length'),
    );
    const { data, response } = await client.responses
      .create({ model: 'gpt-r', input: 'A story.', max_output_tokens: 3, store: false })
      .withResponse();
    expect(data).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      max_output_tokens: 3,
    });
    expect(openai.lastRequest.body.max_completion_tokens).toBe(3);
    expect(response.headers.get('x-gateway-cost-usd')).toBe('1.000006');
  });

  it('refuses a built-in tool with unsupported_tool naming it', async () => {
    const error = await client.responses
      .create({
        model: 'gpt-r',
        input: 'Search the web.',
        tools: [...TOOLS, { type: 'web_search' }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ code: 'unsupported_tool', param: 'tools[2].type', status: 400 });
  });

  it('answers an upstream failure before the first event as an HTTP error, after failover', async () => {
    openai.next(errorResponse(500, { error: { message: 'boom', type: 'server_error' } }));
    openai.next(streamAnswer({ pieces: ['Second', ' one.'] }));
    const rescued = await client.responses
      .stream({ model: 'failover-r', input: 'Hi', store: false })
      .finalResponse();
    expect(rescued.output_text).toBe('Second one.');
    expect(openai.requests.slice(-2).map((r) => r.body.model)).toEqual(['first', 'second']);

    openai.next(errorResponse(500, { error: { message: 'boom', type: 'server_error' } }));
    const error = await client.responses
      .create({ model: 'gpt-r', input: 'Hi' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 502, code: 'upstream_error' });
  });

  it('ends a stream failing after its first event with response.failed', async () => {
    openai.next(streamAnswer({ pieces: ['Partial', ' answer', ' lost'], errorAfter: 2 }));
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-r', input: 'Hi', stream: true }),
    });
    expect(response.status).toBe(200);
    const named = namedEvents(await response.text());
    const events = named.map(({ data }) => data);
    const names = named.map(({ event }) => event);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    expect(names).toEqual(events.map((event) => event.type));
    const last = events.at(-1);
    expect(last).toMatchObject({
      type: 'response.failed',
      response: {
        id: events[0].response.id,
        status: 'failed',
        error: { code: 'upstream_error' },
        output: [{ type: 'message', status: 'incomplete' }],
      },
    });
    expect(last.response.output[0].content[0].text).toBe('Partial answer');
  });

  it('serves an alias, and accounts the request under the endpoint responses and its public model', async () => {
    openai.next(
      streamAnswer({ pieces: ['Hi'], usage: { prompt_tokens: 13, completion_tokens: 1 } }),
    );
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'codex-mini', input: 'Hi', store: false, stream: true }),
    });
    const final = namedEvents(await response.text()).at(-1)!.data.response;
    expect(final.model).toBe('codex-mini');
    expect(openai.lastRequest.body.model).toBe('gpt-5.1');
    const database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
    try {
      await eventually(async () => {
        const { rows } = await database.query(
          `SELECT key_id::text, endpoint, public_model, stream, prompt_tokens, completion_tokens
             FROM usage_records WHERE request_id = $1`,
          [response.headers.get('x-request-id')],
        );
        expect(rows).toEqual([
          {
            key_id: keyId,
            endpoint: 'responses',
            public_model: 'gpt-r',
            stream: true,
            prompt_tokens: 13,
            completion_tokens: 1,
          },
        ]);
      }, 5_000);
    } finally {
      await database.end();
    }
    const metrics = await gateway.app.get(MetricsService).registry.metrics();
    expect(metrics).toMatch(
      /gateway_requests_total\{model="gpt-r",deployment="[^"]+",status="200",endpoint="responses"\} \d+/,
    );
    // Refused before any handler, and still counted under its endpoint.
    await fetch(`${gateway.url}/v1/responses`, { method: 'POST' });
    expect(await gateway.app.get(MetricsService).registry.metrics()).toMatch(
      /gateway_requests_total\{model="-",deployment="-",status="401",endpoint="responses"\} \d+/,
    );
  });
});
