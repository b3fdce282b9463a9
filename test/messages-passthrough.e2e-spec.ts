import Anthropic from '@anthropic-ai/sdk';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeploymentHealthService } from '../src/pipeline/deployment-health.service';
import { startTestApp, type TestApp } from './support/test-app';
import {
  anthropicAnswer,
  anthropicError,
  ANTHROPIC_TEST_KEY,
  apiError,
  COUNT_TOKENS_PATH,
  FakeAnthropicUpstream,
  overloaded,
  recordedStream,
} from './support/upstreams/anthropic-upstream';
import { completion, FakeOpenAiUpstream } from './support/upstreams/openai-upstream';

// POST /v1/messages on Anthropic deployments: the fake Anthropic upstream (byte for byte the
// Messages API) must receive the client's JSON with only `model` replaced, and the client must
// get the answer and the events back as they came, but for `model`.

const FIXTURES = join(__dirname, 'fixtures/anthropic');
const CLAUDE_CODE = JSON.parse(readFileSync(join(FIXTURES, 'claude-code-request.json'), 'utf8'));
const UPSTREAM_MODEL = 'claude-sonnet-4-5-20250929';

describe('/v1/messages pass-through to Anthropic deployments', () => {
  let anthropic: FakeAnthropicUpstream;
  let openai: FakeOpenAiUpstream;
  let gateway: TestApp;
  let key: string;
  let client: Anthropic;

  const native = (extra: Record<string, unknown> = {}) =>
    Object.assign(anthropic.deployment(UPSTREAM_MODEL), extra);

  /** A raw POST, to send exactly these bytes and read exactly what comes back. */
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: Object.assign(
        { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        headers,
      ),
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    anthropic = await FakeAnthropicUpstream.start();
    openai = await FakeOpenAiUpstream.start();
    gateway = await startTestApp({
      models: {
        'claude-native': [
          native({
            name: 'anthropic-primary',
            price: { input: '3', output: '15', cached_input: '0.3', cache_write: '3.75' },
          }),
        ],
        'claude-filtered': [
          native({
            anthropic_beta: ['interleaved-thinking-2025-05-14'],
            headers: { 'X-Extra': 'configured' },
          }),
        ],
        mixed: [
          native({ name: 'mixed-anthropic' }),
          openai.deployment('gpt-upstream-1', { name: 'mixed-openai', weight: 0 }),
        ],
        'gpt-translated': [openai.deployment('gpt-up')],
      },
      aliases: { 'claude-opus-5-5': 'claude-native', 'claude-opus-4-*': 'gpt-translated' },
    });
    key = await gateway.createKey();
    client = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
  });

  afterAll(async () => {
    await gateway.close();
    await anthropic.close();
    await openai.close();
  });

  afterEach(() => {
    anthropic.clearQueue();
    openai.clearQueue();
  });

  it('sends the JSON the client sent, but for the model, and answers what came back', async () => {
    const sent = {
      model: 'claude-native',
      max_tokens: 1024,
      system: [
        { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' } },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Think, then answer.' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Simple.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
            { type: 'text', text: 'Yes.', citations: null },
          ],
        },
        { role: 'user', content: 'Again.' },
      ],
      thinking: { type: 'adaptive', display: 'omitted' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      output_config: { effort: 'medium' },
      a_field_added_to_the_api_later: { nested: [1, 2.5, null, true] },
    };
    anthropic.next(anthropicAnswer({ text: ['Again, yes.'] }));
    const response = await post('/v1/messages', sent, {
      'anthropic-version': '2026-10-21',
      'anthropic-beta': 'context-management-2025-06-27,effort-2025-11-24',
    });
    expect(response.status).toBe(200);
    expect(anthropic.lastRequest.path).toBe('/v1/messages');
    expect(anthropic.lastRequest.body).toEqual(Object.assign({}, sent, { model: UPSTREAM_MODEL }));
    expect(Object.keys(anthropic.lastRequest.body)).toEqual(Object.keys(sent));
    expect(anthropic.lastRequest.headers).toMatchObject({
      'x-api-key': ANTHROPIC_TEST_KEY,
      'anthropic-version': '2026-10-21',
      'anthropic-beta': 'context-management-2025-06-27,effort-2025-11-24',
    });
    const body = await response.json();
    expect(body).toEqual({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      type: 'message',
      role: 'assistant',
      model: 'claude-native',
      content: [{ type: 'text', text: 'Again, yes.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 25,
        output_tokens: 12,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        service_tier: 'standard',
      },
    });
    expect(response.headers.get('x-gateway-cost-usd')).toBe('0.000255');
    expect(response.headers.get('request-id')).toBe(response.headers.get('x-request-id'));
  });

  it('relays a stream byte for byte but for the model, thinking signatures and split tool input intact', async () => {
    const recorded = readFileSync(join(FIXTURES, 'stream-thinking-tool-use.sse'), 'utf8');
    anthropic.next(recordedStream('stream-thinking-tool-use.sse', 'awkward'));
    const response = await post('/v1/messages', {
      model: 'claude-native',
      max_tokens: 2048,
      stream: true,
      messages: [{ role: 'user', content: 'Weather?' }],
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await response.text()).toBe(
      recorded.replace(`"model":"${UPSTREAM_MODEL}"`, '"model":"claude-native"'),
    );

    anthropic.next(recordedStream('stream-thinking-tool-use.sse', 'awkward'));
    const message = await client.messages
      .stream({
        model: 'claude-native',
        max_tokens: 2048,
        messages: [{ role: 'user', content: 'Weather?' }],
      })
      .finalMessage();
    expect(message.model).toBe('claude-native');
    expect(message.content.map((block) => block.type)).toEqual([
      'thinking',
      'redacted_thinking',
      'text',
      'tool_use',
    ]);
    expect(message.content[0]).toEqual(
      expect.objectContaining({ signature: expect.stringMatching(/^EqQBCgIYAh/) }),
    );
    expect(message.content[3]).toEqual(
      expect.objectContaining({ input: { location: 'Île-de-France, "FR"', unit: 'celsius' } }),
    );
    expect(message.usage).toEqual(
      expect.objectContaining({
        input_tokens: 512,
        cache_read_input_tokens: 2048,
        output_tokens: 96,
      }),
    );
  });

  it("filters anthropic-beta to the deployment's list, and sends its configured headers", async () => {
    anthropic.next(anthropicAnswer({ text: ['ok'] }));
    const response = await post(
      '/v1/messages',
      { model: 'claude-filtered', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] },
      { 'anthropic-beta': 'claude-code-20250219, interleaved-thinking-2025-05-14' },
    );
    expect(response.status).toBe(200);
    expect(anthropic.lastRequest.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(anthropic.lastRequest.headers['x-extra']).toBe('configured');
  });

  it('serves the recorded Claude Code request through an alias, passed through and translated', async () => {
    const headers: Record<string, string> = Object.assign({}, CLAUDE_CODE.headers, {
      'x-api-key': key,
    });
    const response = await post(CLAUDE_CODE.path, CLAUDE_CODE.body, headers);
    expect(response.status).toBe(200);
    const events = await response.text();
    expect(events).toContain('"model":"claude-opus-5-5"');
    expect(events.trimEnd().endsWith('event: message_stop\ndata: {"type":"message_stop"}')).toBe(
      true,
    );
    expect(anthropic.lastRequest.body).toEqual(
      Object.assign({}, CLAUDE_CODE.body, { model: UPSTREAM_MODEL }),
    );
    expect(anthropic.lastRequest.headers['anthropic-beta']).toBe(headers['anthropic-beta']);

    openai.next(completion('Translated.'));
    const translated = await post(
      '/v1/messages',
      Object.assign({}, CLAUDE_CODE.body, { model: 'claude-opus-4-8', stream: false }),
      headers,
    );
    expect(translated.status).toBe(200);
    expect(await translated.json()).toEqual(
      expect.objectContaining({
        model: 'claude-opus-4-8',
        content: [{ type: 'text', text: 'Translated.' }],
      }),
    );
    const upstream = openai.lastRequest.body;
    expect(upstream.model).toBe('gpt-up');
    expect(upstream.messages.map((turn: { role: string }) => turn.role)).toEqual([
      'system',
      'user',
      'system',
      'assistant',
      'tool',
    ]);
    expect(upstream.tools).toHaveLength(12);
    expect(upstream).not.toHaveProperty('thinking');
    expect(upstream).not.toHaveProperty('context_management');
  });

  it('fails over from an Anthropic deployment to a translated one before the first byte', async () => {
    anthropic.next(apiError());
    openai.next(completion('From the standby.'));
    const message = await client.messages.create({
      model: 'mixed',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'From the standby.' }]);
    expect(openai.lastRequest.body.max_completion_tokens).toBe(16);
  });

  it('answers an overloaded upstream as 529 overloaded_error, and a later failure as an error event', async () => {
    anthropic.next(overloaded());
    const refused = await post('/v1/messages', {
      model: 'claude-native',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(refused.status).toBe(529);
    expect(await refused.json()).toEqual({
      type: 'error',
      error: {
        type: 'overloaded_error',
        message: 'The model provider is overloaded. Retry later.',
      },
      request_id: refused.headers.get('x-request-id'),
    });

    anthropic.next(anthropicAnswer({ text: ['one ', 'two'], errorAfter: 1 }));
    const cut = await post('/v1/messages', {
      model: 'claude-native',
      max_tokens: 8,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(cut.status).toBe(200);
    const text = await cut.text();
    expect(text).toContain('event: content_block_delta');
    expect(text).not.toContain('message_stop');
    expect(
      text.endsWith(
        `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"The model provider is overloaded. Retry later."},"request_id":"${cut.headers.get('x-request-id')}"}\n\n`,
      ),
    ).toBe(true);
  });

  it("forwards count_tokens to the deployment's count endpoint, and estimates when it fails, health untouched", async () => {
    const body = {
      model: 'claude-native',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
      tools: [{ name: 'noop', input_schema: { type: 'object', properties: {} } }],
    };
    const counted = await client.messages.countTokens(body as Anthropic.MessageCountTokensParams);
    const { system, messages, tools } = body;
    expect(counted).toEqual({
      input_tokens: Math.ceil(JSON.stringify({ system, messages, tools }).length / 4),
    });
    expect(anthropic.lastRequest.path).toBe(COUNT_TOKENS_PATH);
    expect(anthropic.lastRequest.body).toEqual(Object.assign({}, body, { model: UPSTREAM_MODEL }));

    const health = gateway.app.get(DeploymentHealthService);
    for (let i = 0; i < 5; i++) {
      anthropic.next(anthropicError(404, 'not_found_error', 'Not Found'));
      const estimated = await client.messages.countTokens(
        body as Anthropic.MessageCountTokensParams,
      );
      expect(estimated.input_tokens).toBeGreaterThan(0);
    }
    expect(health.isAvailable('anthropic-primary', Date.now())).toBe(true);
  });
});
