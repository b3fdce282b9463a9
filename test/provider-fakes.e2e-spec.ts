import { createParser } from 'eventsource-parser';
import type { DeploymentConfig } from '../src/config/gateway-config.types';
import {
  AnthropicStreamMapper,
  anthropicErrorFromResponse,
  anthropicHeaders,
  anthropicUrl,
  buildAnthropicRequest,
  mapAnthropicResponse,
} from '../src/providers/anthropic/anthropic.mapping';
import {
  buildGeminiRequest,
  geminiErrorFromResponse,
  geminiHeaders,
  geminiUrl,
  GeminiStreamMapper,
  mapGeminiResponse,
} from '../src/providers/gemini/gemini.mapping';
import type { ChatTurn, UpstreamStreamPart } from '../src/providers/provider-adapter.interface';
import {
  anthropicAnswer,
  ANTHROPIC_TEST_KEY,
  FakeAnthropicUpstream,
  overloaded,
  rateLimited,
} from './support/upstreams/anthropic-upstream';
import {
  FakeGeminiUpstream,
  geminiAnswer,
  GEMINI_TEST_KEY,
  rateLimited as geminiRateLimited,
  unavailable,
} from './support/upstreams/gemini-upstream';

// The fake Anthropic and Gemini servers checked against the pure mapping functions over real HTTP:
// what the mappings send is accepted, what the fakes answer (streams cut at awkward bytes included)
// maps back to the expected parts. The adapters' e2e tests build on both.

const messages: ChatTurn[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Weather in SF?' },
];
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { location: { type: 'string' } } },
    },
  },
];

/** Reads an SSE body as it arrives, returning the events and the raw reads. */
async function readSse(
  response: Response,
): Promise<{ events: Array<{ event?: string; data: string }>; reads: Uint8Array[] }> {
  const events: Array<{ event?: string; data: string }> = [];
  const reads: Uint8Array[] = [];
  const parser = createParser({
    onEvent: (event) => events.push({ event: event.event, data: event.data }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    reads.push(chunk);
    parser.feed(decoder.decode(chunk, { stream: true }));
  }
  return { events, reads };
}

/** True if some read ended right after the lead byte of a multi-byte UTF-8 character. */
const splitInsideCharacter = (reads: Uint8Array[]) =>
  reads.some((read) => (read[read.length - 1] & 0xc0) === 0xc0);

describe('fake Anthropic upstream', () => {
  let upstream: FakeAnthropicUpstream;
  let deployment: DeploymentConfig;
  beforeAll(async () => {
    upstream = await FakeAnthropicUpstream.start();
    deployment = {
      baseUrl: upstream.url,
      apiKey: ANTHROPIC_TEST_KEY,
      upstreamModel: 'claude-sonnet-4-5',
      headers: {},
    } as unknown as DeploymentConfig;
  });
  afterAll(() => upstream.close());

  const call = (stream: boolean, key = ANTHROPIC_TEST_KEY) =>
    fetch(anthropicUrl(deployment), {
      method: 'POST',
      headers: anthropicHeaders({ ...deployment, apiKey: key }, 'req-1'),
      body: JSON.stringify(
        buildAnthropicRequest(
          { deployment, messages, parameters: { tools } },
          { stream, defaultMaxTokens: 1024 },
        ),
      ),
    });

  it('answers the mapped request with a message that maps to text and a tool call', async () => {
    upstream.next(
      anthropicAnswer({
        text: ['Checking.'],
        toolUses: [{ name: 'get_weather', input: { location: 'SF' } }],
        usage: { input_tokens: 30, output_tokens: 8 },
      }),
    );
    const response = await call(false);
    expect(response.status).toBe(200);
    expect(upstream.lastRequest.body).toMatchObject({
      system: 'Be brief.',
      max_tokens: 1024,
      model: 'claude-sonnet-4-5',
    });
    const result = mapAnthropicResponse(await response.json());
    expect(result).toMatchObject({
      content: 'Checking.',
      finishReason: 'tool_calls',
      usage: { promptTokens: 30, completionTokens: 8 },
    });
    expect(result.toolCalls).toEqual([
      expect.objectContaining({
        function: { name: 'get_weather', arguments: '{"location":"SF"}' },
      }),
    ]);
  });

  it('streams text, a tool call and usage, cut inside event lines and characters', async () => {
    upstream.next(
      anthropicAnswer({
        text: ['Il fait ', 'beau à SF — 🌞'],
        toolUses: [{ name: 'get_weather', input: { location: 'San Francisco' } }],
        chunking: 'awkward',
        usage: { input_tokens: 30, output_tokens: 21 },
      }),
    );
    const { events, reads } = await readSse(await call(true));
    expect(reads.length).toBeGreaterThan(events.length);
    expect(splitInsideCharacter(reads)).toBe(true);
    expect(reads.some((read) => Buffer.from(read).toString('latin1').endsWith('eve'))).toBe(true);
    const mapper = new AnthropicStreamMapper();
    const parts: UpstreamStreamPart[] = events.flatMap((event) => mapper.map(event));
    const text = parts.map((part) => (part.type === 'delta' ? (part.content ?? '') : '')).join('');
    const args = parts
      .flatMap((part) => (part.type === 'delta' ? (part.toolCalls ?? []) : []))
      .map((delta) => delta.function?.arguments ?? '')
      .join('');
    expect(text).toBe('Il fait beau à SF — 🌞');
    expect(JSON.parse(args)).toEqual({ location: 'San Francisco' });
    expect(parts.slice(-2)).toEqual([
      { type: 'delta', finishReason: 'tool_calls', rawFinishReason: 'tool_use' },
      {
        type: 'usage',
        usage: { promptTokens: 30, completionTokens: 21, cachedTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
  });

  it('refuses a wrong key, and answers scripted 429 and 529 errors the mappings classify', async () => {
    const refused = await call(false, 'sk-ant-wrong');
    expect(anthropicErrorFromResponse(refused.status, await refused.text())).toMatchObject({
      kind: 'upstream_auth',
      options: { upstreamStatus: 401 },
    });
    upstream.next(rateLimited(7), overloaded());
    const limited = await call(false);
    expect(
      anthropicErrorFromResponse(
        limited.status,
        await limited.text(),
        limited.headers.get('retry-after') ?? undefined,
      ),
    ).toMatchObject({
      kind: 'rate_limited',
      options: { retryAfterSeconds: 7 },
    });
    const busy = await call(true);
    expect(busy.status).toBe(529);
    expect(anthropicErrorFromResponse(busy.status, await busy.text())).toMatchObject({
      kind: 'upstream_overloaded',
      retryable: true,
    });
  });

  it('refuses a request the real API would refuse: roles not alternating', async () => {
    const response = await fetch(anthropicUrl(deployment), {
      method: 'POST',
      headers: anthropicHeaders(deployment, 'req-1'),
      body: JSON.stringify({
        model: 'x',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(anthropicErrorFromResponse(400, await response.text()).kind).toBe('bad_request');
  });
});

describe('fake Gemini upstream', () => {
  let upstream: FakeGeminiUpstream;
  let deployment: DeploymentConfig;
  beforeAll(async () => {
    upstream = await FakeGeminiUpstream.start();
    deployment = {
      baseUrl: upstream.url,
      apiKey: GEMINI_TEST_KEY,
      upstreamModel: 'gemini-2.5-flash',
      headers: {},
    } as unknown as DeploymentConfig;
  });
  afterAll(() => upstream.close());

  const call = (stream: boolean, key = GEMINI_TEST_KEY) =>
    fetch(geminiUrl(deployment, stream), {
      method: 'POST',
      headers: geminiHeaders({ ...deployment, apiKey: key }, 'req-1'),
      body: JSON.stringify(buildGeminiRequest({ messages, parameters: { tools, max_tokens: 50 } })),
    });

  it('answers the mapped request with JSON that maps to text and usage', async () => {
    upstream.next(
      geminiAnswer({
        text: ['Sunny.'],
        usage: { promptTokenCount: 11, candidatesTokenCount: 2, thoughtsTokenCount: 5 },
      }),
    );
    const response = await call(false);
    expect(response.status).toBe(200);
    expect(upstream.lastRequest.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(upstream.lastRequest.body).toMatchObject({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      generationConfig: { maxOutputTokens: 50 },
    });
    expect(mapGeminiResponse(await response.json())).toEqual({
      content: 'Sunny.',
      finishReason: 'stop',
      rawFinishReason: 'STOP',
      usage: { promptTokens: 11, completionTokens: 7, reasoningTokens: 5 },
    });
  });

  it('streams text chunks, a function call and usage over CRLF frames cut at awkward bytes', async () => {
    upstream.next(
      geminiAnswer({
        text: ['Il fait ', 'beau — 🌞'],
        functionCalls: [{ name: 'get_weather', args: { location: 'SF' } }],
        chunking: 'awkward',
        usage: { promptTokenCount: 11, candidatesTokenCount: 9 },
      }),
    );
    const response = await call(true);
    expect(upstream.lastRequest.path).toBe(
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    const { events, reads } = await readSse(response);
    expect(events).toHaveLength(3);
    expect(splitInsideCharacter(reads)).toBe(true);
    expect(reads.some((read) => read[read.length - 1] === 0x0d)).toBe(true);
    const mapper = new GeminiStreamMapper(() => 'call_x');
    const parts = [...events.flatMap((event) => mapper.map(event.data)), ...mapper.finish()];
    expect(parts).toEqual([
      { type: 'delta', content: 'Il fait ' },
      { type: 'delta', content: 'beau — 🌞' },
      {
        type: 'delta',
        toolCalls: [
          {
            index: 0,
            id: 'call_x',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"SF"}' },
          },
        ],
        finishReason: 'tool_calls',
        rawFinishReason: 'STOP',
      },
      { type: 'usage', usage: { promptTokens: 11, completionTokens: 9 } },
    ]);
  });

  it('refuses a wrong key the way Google does (400 API_KEY_INVALID), mapped to upstream_auth', async () => {
    const response = await call(false, 'AIza-wrong');
    expect(response.status).toBe(400);
    expect(geminiErrorFromResponse(400, await response.text()).kind).toBe('upstream_auth');
  });

  it('answers scripted RESOURCE_EXHAUSTED and UNAVAILABLE errors', async () => {
    upstream.next(geminiRateLimited(12), unavailable());
    const limited = await call(true);
    expect(geminiErrorFromResponse(limited.status, await limited.text())).toMatchObject({
      kind: 'rate_limited',
      options: { retryAfterSeconds: 12 },
    });
    const busy = await call(false);
    expect(geminiErrorFromResponse(busy.status, await busy.text())).toMatchObject({
      kind: 'upstream_overloaded',
      options: { upstreamStatus: 503 },
    });
  });
});
