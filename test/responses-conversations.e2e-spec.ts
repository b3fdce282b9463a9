import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { anthropicAnswer, FakeAnthropicUpstream } from './support/upstreams/anthropic-upstream';
import { FakeGeminiUpstream, geminiAnswer } from './support/upstreams/gemini-upstream';
import {
  completion,
  FakeOpenAiUpstream,
  streamAnswer,
  toolCallAnswer,
} from './support/upstreams/openai-upstream';
import type { UpstreamHandler } from './support/upstreams/scripted-upstream';
import { namedEvents } from './support/sse-client';
import { startProviderFakes, type ProviderFakes } from './support/upstreams/provider-fakes';
import { startTestApp, TestApp } from './support/test-app';

// Conversations on /v1/responses: tool round trips through previous_response_id and through a
// whole input, the stored responses' routes and their owner, a continuation sent the moment
// response.completed arrives, and the recorded Codex request, on every provider.

const FIXTURES = join(__dirname, 'fixtures');
const PATCH = '*** Begin Patch\n*** Update File: README.md\n@@\n # Demo\n+hi\n*** End Patch\n';
const WEATHER: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
};

/** Replays a recorded provider stream byte for byte. */
const replay =
  (fixture: string): UpstreamHandler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(readFileSync(join(FIXTURES, fixture)));
  };

describe('/v1/responses conversations', () => {
  let fakes: ProviderFakes;
  let openai: FakeOpenAiUpstream;
  let anthropic: FakeAnthropicUpstream;
  let gemini: FakeGeminiUpstream;
  let gateway: TestApp;
  let client: OpenAI;
  let other: OpenAI;
  let key: string;

  beforeAll(async () => {
    fakes = await startProviderFakes();
    ({ openai, anthropic, gemini } = fakes);
    gateway = await startTestApp({
      models: {
        'gpt-r': [openai.deployment('gpt-5.1')],
        'claude-r': [anthropic.deployment('claude-sonnet-4-5')],
        'alpha-k3': [{ provider: 'mock' }],
        'gemini-r': [gemini.deployment('gemini-2.5-pro')],
      },
      env: { SSE_HEARTBEAT_MS: '0' },
    });
    key = await gateway.createKey();
    const baseURL = `${gateway.url}/v1`;
    client = new OpenAI({ apiKey: key, baseURL, maxRetries: 0 });
    other = new OpenAI({ apiKey: await gateway.createKey(), baseURL, maxRetries: 0 });
  });

  afterAll(async () => {
    await gateway?.close();
    await fakes?.close();
  });

  const providers = {
    openai: {
      model: 'gpt-r',
      upstream: () => openai,
      call: () =>
        toolCallAnswer([{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Oslo"}' }]),
      text: (text: string) => completion(text),
      codex: 'openai/stream-apply-patch.sse',
      /** The conversation the provider received, as role:kind strings. */
      turns: (body: any) =>
        body.messages.map(
          (m: any) => `${m.role}:${m.tool_calls ? 'call' : (m.tool_call_id ?? 'text')}`,
        ),
      answered: ['user:text', 'assistant:call', 'tool:call_w1'],
    },
    anthropic: {
      model: 'claude-r',
      upstream: () => anthropic,
      call: () =>
        anthropicAnswer({
          toolUses: [{ id: 'toolu_w1', name: 'get_weather', input: { city: 'Oslo' } }],
        }),
      text: (text: string) => anthropicAnswer({ text: [text] }),
      codex: 'anthropic/stream-apply-patch.sse',
      turns: (body: any) =>
        body.messages.flatMap((m: any) =>
          m.content.map((b: any) => `${m.role}:${b.tool_use_id ?? b.id ?? b.type}`),
        ),
      answered: ['user:text', 'assistant:toolu_w1', 'user:toolu_w1'],
    },
    gemini: {
      model: 'gemini-r',
      upstream: () => gemini,
      call: () =>
        geminiAnswer({ functionCalls: [{ name: 'get_weather', args: { city: 'Oslo' } }] }),
      text: (text: string) => geminiAnswer({ text: [text] }),
      codex: 'gemini/stream-apply-patch.sse',
      turns: (body: any) =>
        body.contents.flatMap((c: any) =>
          c.parts.map((p: any) => `${c.role}:${Object.keys(p)[0]}`),
        ),
      answered: ['user:text', 'model:functionCall', 'user:functionResponse'],
    },
  };

  describe.each(Object.entries(providers))('%s', (_name, provider) => {
    it('continues a function call through previous_response_id', async () => {
      provider.upstream().next(provider.call(), provider.text('3 degrees in Oslo.'));
      const first = await client.responses.create({
        model: provider.model,
        input: 'Weather in Oslo?',
        tools: [WEATHER],
      });
      const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
      expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
      const second = await client.responses.create({
        model: provider.model,
        previous_response_id: first.id,
        tools: [WEATHER],
        input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temp":3}' }],
      });
      expect(second.output_text).toBe('3 degrees in Oslo.');
      expect(second.previous_response_id).toBe(first.id);
      expect(provider.turns(provider.upstream().lastRequest.body)).toEqual(provider.answered);
    });

    it('continues a function call sent back as a whole input, nothing stored', async () => {
      provider.upstream().next(provider.text('Cold.'));
      const response = await client.responses.create({
        model: provider.model,
        store: false,
        tools: [WEATHER],
        input: [
          { role: 'user', content: 'Weather in Oslo?' },
          {
            type: 'function_call',
            call_id: 'toolu_w1',
            name: 'get_weather',
            arguments: '{"city":"Oslo"}',
          },
          { type: 'function_call_output', call_id: 'toolu_w1', output: '{"temp":3}' },
        ],
      });
      expect(response.output_text).toBe('Cold.');
      expect(provider.turns(provider.upstream().lastRequest.body)).toEqual(
        provider.answered.map((turn) => turn.replace(/call_w1/, 'toolu_w1')),
      );
      await expect(client.responses.retrieve(response.id)).rejects.toBeInstanceOf(
        OpenAI.NotFoundError,
      );
    });

    it('serves the recorded Codex request end to end', async () => {
      provider.upstream().next(replay(provider.codex));
      const body = JSON.parse(readFileSync(join(FIXTURES, 'codex/request.json'), 'utf8'));
      const response = await fetch(`${gateway.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, model: provider.model }),
      });
      expect(response.status).toBe(200);
      const all = namedEvents(await response.text()).map(({ data }) => data);
      const completed = all.at(-1);
      expect(completed).toMatchObject({ type: 'response.completed', response: { store: false } });
      expect(completed.response.output).toEqual([
        expect.objectContaining({ type: 'message', status: 'completed' }),
        expect.objectContaining({ type: 'custom_tool_call', name: 'apply_patch', input: PATCH }),
      ]);
      const sent = JSON.stringify(provider.upstream().lastRequest.body);
      for (const tool of ['exec_command', 'update_plan', 'apply_patch', 'view_image'])
        expect(sent).toContain(tool);
      expect(sent).toContain('cat README.md');
      await expect(client.responses.retrieve(completed.response.id)).rejects.toMatchObject({
        status: 404,
      });
    });
  });

  it('retrieves, lists input items of and deletes a response for its own key only', async () => {
    openai.next(completion('Hello!'));
    const created = await client.responses.create({
      model: 'gpt-r',
      instructions: 'Be brief.',
      metadata: { ticket: 'T-1' },
      input: [
        { role: 'developer', content: 'Rules.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    const retrieved = await client.responses.retrieve(created.id);
    expect(retrieved).toMatchObject({
      id: created.id,
      status: 'completed',
      instructions: 'Be brief.',
      metadata: { ticket: 'T-1' },
      output_text: 'Hello!',
      output: created.output,
    });
    const items = await client.responses.inputItems.list(created.id);
    expect(items.data.map((item: any) => [item.type, item.role, item.id.slice(0, 4)])).toEqual([
      ['message', 'user', 'msg_'],
      ['message', 'developer', 'msg_'],
    ]);
    const asc = await client.responses.inputItems.list(created.id, { order: 'asc', limit: 1 });
    expect(asc.data.map((item: any) => item.role)).toEqual(['developer']);
    expect(asc.has_more).toBe(true);

    for (const call of [
      () => other.responses.retrieve(created.id),
      () => other.responses.inputItems.list(created.id),
      () => other.responses.delete(created.id),
    ])
      await expect(call()).rejects.toMatchObject({ status: 404, code: 'response_not_found' });
    await expect(
      other.responses.create({ model: 'gpt-r', previous_response_id: created.id, input: 'Go on' }),
    ).rejects.toMatchObject({
      status: 404,
      code: 'response_not_found',
      param: 'previous_response_id',
    });

    const deleted = await fetch(`${gateway.url}/v1/responses/${created.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await deleted.json()).toEqual({ id: created.id, object: 'response', deleted: true });
    await expect(client.responses.retrieve(created.id)).rejects.toMatchObject({
      code: 'response_not_found',
    });
  });

  it("counts the chain it continues toward the key's token budget", async () => {
    const budgeted = new OpenAI({
      apiKey: await gateway.createKey({ tokenBudget: 2000, budgetPeriod: 'total' }),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
    const ask = (input: string, more: Record<string, unknown> = {}) =>
      budgeted.responses.create({ model: 'alpha-k3', input, max_output_tokens: 5, ...more });
    const first = await ask('word '.repeat(320));
    expect(first.usage!.input_tokens).toBe(400);
    // A hold is an upper bound (about one token per byte): the 1,600-byte first input fits 2,000;
    // the same short input fits alone, but not with the conversation it continues.
    await ask('Short.', { store: false });
    await expect(ask('Short.', { previous_response_id: first.id })).rejects.toMatchObject({
      status: 429,
      code: 'budget_exceeded',
    });
  });

  it('continues a response the moment its response.completed arrives', async () => {
    openai.next(streamAnswer({ pieces: ['First', ' answer.'] }), completion('Second answer.'));
    const stream = client.responses.stream({ model: 'gpt-r', input: 'One' });
    let continued: Promise<OpenAI.Responses.Response> | undefined;
    for await (const event of stream) {
      if (event.type === 'response.completed') {
        continued = client.responses.create({
          model: 'gpt-r',
          previous_response_id: event.response.id,
          input: 'Two',
        });
      }
    }
    expect((await continued!).output_text).toBe('Second answer.');
    expect(openai.lastRequest.body.messages).toEqual([
      { role: 'user', content: 'One' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'Two' },
    ]);
  });
});

describe('/v1/responses with RESPONSES_STORE=off', () => {
  let gateway: TestApp;
  let client: OpenAI;

  beforeAll(async () => {
    gateway = await startTestApp({ env: { RESPONSES_STORE: 'off' } });
    client = new OpenAI({
      apiKey: await gateway.createKey(),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
  });

  afterAll(() => gateway?.close());

  it('serves a request that does not ask for the store, and stores nothing', async () => {
    const response = await client.responses.create({ model: 'alpha-k3', input: 'Hello' });
    expect(response).toMatchObject({ status: 'completed', store: false });
    expect(response.output_text).toContain('Hello');
    await expect(client.responses.retrieve(response.id)).rejects.toMatchObject({
      status: 404,
      code: 'response_not_found',
    });
    await expect(client.responses.delete(response.id)).rejects.toMatchObject({ status: 404 });
  });

  it.each([
    [{ store: true }, 'store'],
    [{ previous_response_id: 'resp_123' }, 'previous_response_id'],
  ])('refuses %j with store_disabled', async (fields, param) => {
    await expect(
      client.responses.create({ model: 'alpha-k3', input: 'Hello', ...fields }),
    ).rejects.toMatchObject({ status: 400, code: 'store_disabled', param });
  });
});
