import Anthropic from '@anthropic-ai/sdk';
import { Client } from 'pg';
import request from 'supertest';
import { eventually } from './support/eventually';
import { startTestApp, type TestApp } from './support/test-app';
import { completion, FakeOpenAiUpstream, streamAnswer } from './support/upstreams/openai-upstream';
import { toolCallCompletion, toolCallStream } from './support/upstreams/openai-tools';

// POST /v1/messages on deployments that do not speak Anthropic's format: the official SDK's
// requests are translated for a fake OpenAI upstream (byte for byte OpenAI's wire format) and
// the built-in mock, and the answers come back as Anthropic messages and events.

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: {
    type: 'object' as const,
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
};

/** What the SDK rebuilds and what it answers differ by id and the SDK's parsed_output alone. */
function comparable(message: object): object {
  const copy: Record<string, unknown> = Object.assign({}, message);
  delete copy.id;
  delete copy.parsed_output;
  return copy;
}

describe('/v1/messages translated (official Anthropic SDK)', () => {
  let openai: FakeOpenAiUpstream;
  let gateway: TestApp;
  let key: { id: string; secret: string };
  let client: Anthropic;
  let database: Client;

  beforeAll(async () => {
    openai = await FakeOpenAiUpstream.start();
    gateway = await startTestApp({
      models: {
        'gpt-translated': [openai.deployment('gpt-upstream-1', { name: 'gpt-primary' })],
        'mock-model': [{ provider: 'mock', chunk_delay_ms: 1 }],
      },
      aliases: { 'claude-sonnet-5': 'gpt-translated', 'claude-haiku-*': 'mock-model' },
    });
    key = await gateway.createKeyWithId();
    client = new Anthropic({ apiKey: key.secret, baseURL: gateway.url, maxRetries: 0 });
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
  });

  afterAll(async () => {
    await database.end();
    await gateway.close();
    await openai.close();
  });

  afterEach(() => openai.clearQueue());

  it('answers JSON: system blocks, stop sequences and metadata translated, usage in Anthropic terms', async () => {
    openai.next(
      completion('Bonjour !', {
        prompt_tokens: 120,
        completion_tokens: 4,
        prompt_tokens_details: { cached_tokens: 100 },
      }),
    );
    const { data, response } = await client.messages
      .create({
        model: 'gpt-translated',
        max_tokens: 256,
        system: [
          { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Answer in French.' },
        ],
        messages: [{ role: 'user', content: 'Hello' }],
        stop_sequences: ['###'],
        temperature: 0.2,
        metadata: { user_id: 'user-42' },
      })
      .withResponse();
    expect(data).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
      type: 'message',
      role: 'assistant',
      model: 'gpt-translated',
      content: [{ type: 'text', text: 'Bonjour !' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 20,
        output_tokens: 4,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 100,
      },
    });
    expect(response.headers.get('request-id')).toBe(response.headers.get('x-request-id'));
    expect(openai.lastRequest.body).toEqual({
      model: 'gpt-upstream-1',
      messages: [
        { role: 'system', content: 'You are terse.\n\nAnswer in French.' },
        { role: 'user', content: 'Hello' },
      ],
      max_completion_tokens: 256,
      stop: ['###'],
      temperature: 0.2,
      user: 'user-42',
    });
  });

  it('streams events that finalMessage() rebuilds into exactly the JSON answer, tool calls included', async () => {
    const script = {
      text: 'Checking both cities.',
      calls: [
        { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris, Île-de-France"}' },
        { id: 'call_rome', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    };
    openai.next(toolCallCompletion(script), toolCallStream(script, 'awkward'));
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model: 'gpt-translated',
      max_tokens: 512,
      tools: [WEATHER_TOOL],
      tool_choice: { type: 'auto', disable_parallel_tool_use: false },
      messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
    };
    const json = await client.messages.create(params);
    const events: string[] = [];
    const stream = client.messages.stream(params).on('streamEvent', (event) => {
      events.push(event.type);
    });
    const streamed = await stream.finalMessage();
    expect(comparable(streamed)).toEqual(comparable(json));
    expect(json.stop_reason).toBe('tool_use');
    expect(json.content).toEqual([
      { type: 'text', text: 'Checking both cities.' },
      {
        type: 'tool_use',
        id: 'call_paris',
        name: 'get_weather',
        input: { city: 'Paris, Île-de-France' },
      },
      { type: 'tool_use', id: 'call_rome', name: 'get_weather', input: { city: 'Rome' } },
    ]);
    expect(events[0]).toBe('message_start');
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(events.filter((type) => type === 'content_block_start')).toHaveLength(3);
    expect(events.filter((type) => type === 'content_block_stop')).toHaveLength(3);
  });

  it('sends a tool round trip as tool calls and tool messages, ids, order and side text kept', async () => {
    openai.next(completion('Paris is warmer.'));
    const answer = await client.messages.create({
      model: 'gpt-translated',
      max_tokens: 128,
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'call_paris', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'call_rome', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_paris', content: '21°C' },
            {
              type: 'tool_result',
              tool_use_id: 'call_rome',
              is_error: true,
              content: [{ type: 'text', text: 'station offline' }],
            },
            { type: 'text', text: 'Which is warmer?' },
          ],
        },
      ],
    });
    expect(answer.content).toEqual([{ type: 'text', text: 'Paris is warmer.' }]);
    expect(openai.lastRequest.body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          {
            id: 'call_paris',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'call_rome',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_paris', content: '21°C' },
      { role: 'tool', tool_call_id: 'call_rome', content: 'station offline' },
      { role: 'user', content: 'Which is warmer?' },
    ]);
    expect(openai.lastRequest.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: WEATHER_TOOL.input_schema,
        },
      },
    ]);
  });

  it('sends an image as an image part', async () => {
    openai.next(completion('A red dot.'));
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    await client.messages.create({
      model: 'gpt-translated',
      max_tokens: 64,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            { type: 'text', text: 'What is this?' },
          ],
        },
      ],
    });
    expect(openai.lastRequest.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
          { type: 'text', text: 'What is this?' },
        ],
      },
    ]);
  });

  it("answers Claude Code's max_tokens: 1 probe with stop_reason max_tokens, through a prefix alias", async () => {
    const answer = await client.messages.create({
      model: 'claude-haiku-4-5-20251001',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'quota' }],
    });
    expect(answer.model).toBe('claude-haiku-4-5-20251001');
    expect(answer.stop_reason).toBe('max_tokens');
    expect(answer.content).toEqual([{ type: 'text', text: 'This ' }]);
    expect(answer.usage.output_tokens).toBe(1);
  });

  it('says which stop sequence ended the answer where the target does (the mock), JSON and stream', async () => {
    const params = {
      model: 'mock-model',
      max_tokens: 100,
      stop_sequences: ['zebra', 'answer'],
      messages: [{ role: 'user' as const, content: 'hi' }],
    };
    const json = await client.messages.create(params);
    expect(json.stop_reason).toBe('stop_sequence');
    expect(json.stop_sequence).toBe('answer');
    expect(json.content).toEqual([{ type: 'text', text: 'This is a mock ' }]);
    const streamed = await client.messages.stream(params).finalMessage();
    expect(comparable(streamed)).toEqual(comparable(json));
  });

  it('records usage under the endpoint messages and the public model an alias names', async () => {
    openai.next(
      streamAnswer({
        pieces: ['Hi', ' there'],
        usage: { prompt_tokens: 11, completion_tokens: 2 },
      }),
    );
    const stream = client.messages.stream({
      model: 'claude-sonnet-5',
      max_tokens: 32,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const { response } = await stream.withResponse();
    const streamed = await stream.finalMessage();
    expect(streamed.model).toBe('claude-sonnet-5');
    expect(streamed.usage).toEqual(expect.objectContaining({ input_tokens: 11, output_tokens: 2 }));
    await eventually(async () => {
      const { rows } = await database.query(
        `SELECT key_id::text, endpoint, public_model, stream, prompt_tokens, completion_tokens
           FROM usage_records WHERE request_id = $1`,
        [response.headers.get('request-id')],
      );
      expect(rows).toEqual([
        {
          key_id: key.id,
          endpoint: 'messages',
          public_model: 'gpt-translated',
          stream: true,
          prompt_tokens: 11,
          completion_tokens: 2,
        },
      ]);
    }, 5_000);
  });

  it('serves an alias on /v1/chat/completions too, answering with the name sent', async () => {
    openai.next(completion('ok'));
    const response = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${key.secret}`)
      .send({ model: 'claude-sonnet-5', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect(response.body.model).toBe('claude-sonnet-5');
    expect(openai.lastRequest.body.model).toBe('gpt-upstream-1');
  });
});
