import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import type { ChatTurn, UpstreamStreamPart } from '../provider-adapter.interface';
import {
  buildGeminiRequest,
  geminiErrorFromResponse,
  geminiHeaders,
  geminiUrl,
  GeminiStreamMapper,
  mapGeminiResponse,
  thoughtSignatureOf,
  withThoughtSignature,
} from './gemini.mapping';

const FIXTURES = join(__dirname, '../../../test/fixtures/gemini');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

/** The `data:` payloads of a recorded stream, fed byte by byte as the wire may deliver them. */
function sseData(text: string): string[] {
  const data: string[] = [];
  const parser = createParser({ onEvent: (event) => data.push(event.data) });
  const decoder = new TextDecoder();
  for (const byte of Buffer.from(text))
    parser.feed(decoder.decode(Uint8Array.of(byte), { stream: true }));
  return data;
}

function counter(): () => string {
  let next = 0;
  return () => `call_${next++}`;
}

const deployment = {
  baseUrl: 'https://generativelanguage.googleapis.com/v1beta/',
  apiKey: 'AIza-test',
  upstreamModel: 'models/gemini-2.5-flash',
  headers: { 'X-Goog-Api-Key': 'not-this-one', 'X-Goog-User-Project': 'proj' },
} as unknown as DeploymentConfig;

const build = (messages: ChatTurn[], parameters: Record<string, unknown> = {}) =>
  buildGeminiRequest({ messages, parameters });

describe('Gemini request mapping', () => {
  it('maps roles, system instruction and generation config', () => {
    const body = build(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use metric units.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Weather?' },
      ],
      { temperature: 0.3, top_p: 0.8, max_tokens: 100, stop: ['END'], seed: 7 },
    );
    expect(body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts: [{ text: 'Hello!' }] },
        { role: 'user', parts: [{ text: 'Weather?' }] },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Use metric units.' }] },
      generationConfig: {
        temperature: 0.3,
        topP: 0.8,
        maxOutputTokens: 100,
        stopSequences: ['END'],
        seed: 7,
      },
    });
  });

  it('samples by top_k, which only /v1/messages sets', () => {
    expect(build([{ role: 'user', content: 'x' }], { top_k: 40 }).generationConfig).toEqual({
      topK: 40,
    });
  });

  it('sends no generationConfig when nothing was asked', () => {
    expect(build([{ role: 'user', content: 'x' }])).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
    });
  });

  it('maps response_format json_object and json_schema', () => {
    expect(
      build([{ role: 'user', content: 'x' }], { response_format: { type: 'json_object' } })
        .generationConfig,
    ).toEqual({
      responseMimeType: 'application/json',
    });
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    expect(
      build([{ role: 'user', content: 'x' }], {
        response_format: { type: 'json_schema', json_schema: { name: 'r', schema, strict: true } },
      }).generationConfig,
    ).toEqual({ responseMimeType: 'application/json', responseJsonSchema: schema });
  });

  it('maps image data URLs to inlineData', () => {
    const content = [
      { type: 'text', text: 'What is it?' },
      { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
    ] as unknown as string;
    expect(build([{ role: 'user', content }]).contents[0].parts).toEqual([
      { text: 'What is it?' },
      { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } },
    ]);
  });

  it('maps a tool round trip, recovering function names from the assistant tool_call ids', () => {
    const body = build(
      [
        { role: 'user', content: 'Weather and time in SF?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_a',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"SF"}' },
            },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_b', content: '09:14' },
        { role: 'tool', tool_call_id: 'call_a', content: '{"temp":18}' },
      ],
      {
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'Weather now',
              parameters: { type: 'object', properties: {} },
            },
          },
          { type: 'function', function: { name: 'get_time' } },
        ],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      },
    );
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather now',
            parametersJsonSchema: { type: 'object', properties: {} },
          },
          { name: 'get_time' },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather and time in SF?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { location: 'SF' } } },
          { functionCall: { name: 'get_time', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_time', response: { result: '09:14' } } },
          { functionResponse: { name: 'get_weather', response: { temp: 18 } } },
        ],
      },
    ]);
  });

  it('sends a thought signature carried in a tool-call id back on its functionCall part', () => {
    // Real signatures are standard base64 with '+', '/' and padding.
    const signature = 'Ep8BCpwBAb4+9vu/R1w=';
    const id = withThoughtSignature('call_0123', signature);
    expect(id).toMatch(/^call_0123_sig_[A-Za-z0-9_-]+$/);
    const body = build([
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: id, content: 'sunny' },
    ]);
    expect(body.contents[1].parts).toEqual([
      { functionCall: { name: 'get_weather', args: {} }, thoughtSignature: signature },
    ]);
    expect(body.contents[2].parts).toEqual([
      { functionResponse: { name: 'get_weather', response: { result: 'sunny' } } },
    ]);
    expect(thoughtSignatureOf('call_0123')).toBeUndefined();
  });

  it.each([
    ['auto', { mode: 'AUTO' }],
    ['none', { mode: 'NONE' }],
    ['required', { mode: 'ANY' }],
  ])('maps tool_choice %s', (tool_choice, expected) => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    expect(build([{ role: 'user', content: 'x' }], { tools, tool_choice }).toolConfig).toEqual({
      functionCallingConfig: expected,
    });
  });

  it('builds both URLs and the headers: our key wins over a configured one', () => {
    expect(geminiUrl(deployment, false)).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
    );
    expect(geminiUrl(deployment, true)).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(geminiHeaders(deployment, 'req-1')).toEqual({
      'x-goog-api-key': 'AIza-test',
      'x-goog-user-project': 'proj',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-request-id': 'req-1',
    });
  });
});

describe('Gemini response mapping', () => {
  it('joins text parts without thought summaries and counts thinking as completion', () => {
    expect(mapGeminiResponse(JSON.parse(fixture('generate-text.json')))).toEqual({
      content: 'Bonjour ! Comment allez-vous ?',
      finishReason: 'stop',
      rawFinishReason: 'STOP',
      usage: { promptTokens: 9, completionTokens: 7 + 25, reasoningTokens: 25 },
    });
  });

  it('maps functionCall parts to tool_calls with generated ids and finish reason tool_calls', () => {
    const result = mapGeminiResponse(JSON.parse(fixture('generate-function-call.json')), counter());
    expect(result).toEqual({
      content: null,
      toolCalls: [
        {
          id: 'call_0_sig_CiQB0e2Kb7x0pZs1Jqkq',
          type: 'function',
          function: {
            name: 'get_weather',
            arguments: '{"location":"San Francisco, CA","unit":"celsius"}',
          },
        },
        {
          id: 'call_1',
          type: 'function',
          function: {
            name: 'get_weather',
            arguments: '{"location":"Paris, France","unit":"celsius"}',
          },
        },
      ],
      finishReason: 'tool_calls',
      rawFinishReason: 'STOP',
      usage: { promptTokens: 71, completionTokens: 36 },
    });
  });

  it('generates distinct ids by default', () => {
    const result = mapGeminiResponse(JSON.parse(fixture('generate-function-call.json')));
    const ids = (result.toolCalls as Array<{ id: string }>).map((call) => call.id);
    expect(new Set(ids).size).toBe(2);
    expect(ids[1]).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it('maps SAFETY to content_filter, keeping the text produced before the cut', () => {
    expect(mapGeminiResponse(JSON.parse(fixture('generate-safety.json')))).toMatchObject({
      content: 'I can describe the general',
      finishReason: 'content_filter',
      rawFinishReason: 'SAFETY',
    });
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['SPII', 'content_filter'],
    ['OTHER', 'content_filter'],
  ])('maps finishReason %s to %s', (raw, expected) => {
    const body = {
      candidates: [{ content: { parts: [{ text: 'x' }], role: 'model' }, finishReason: raw }],
    };
    expect(mapGeminiResponse(body).finishReason).toBe(expected);
  });

  it('maps a blocked prompt (no candidates) to an empty content_filter answer', () => {
    expect(mapGeminiResponse(JSON.parse(fixture('blocked-prompt.json')))).toEqual({
      content: '',
      finishReason: 'content_filter',
      rawFinishReason: 'PROHIBITED_CONTENT',
      usage: { promptTokens: 12, completionTokens: 0 },
    });
  });

  it('refuses an answer with neither candidates nor a block reason', () => {
    expect(() => mapGeminiResponse({ modelVersion: 'x' })).toThrow(
      expect.objectContaining({ kind: 'invalid_response' }),
    );
  });
});

describe('Gemini stream mapping', () => {
  it('maps a recorded stream with text chunks, function calls and usage', () => {
    const mapper = new GeminiStreamMapper(counter());
    const parts: UpstreamStreamPart[] = sseData(fixture('stream-text-function-call.sse')).flatMap(
      (data) => mapper.map(data),
    );
    parts.push(...mapper.finish());
    expect(parts).toEqual([
      { type: 'delta', content: 'Let me look up the weather. Il fait beau à ' },
      { type: 'delta', content: 'Paris — 🌞 and in SF?' },
      {
        type: 'delta',
        toolCalls: [
          {
            index: 0,
            id: 'call_0',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' },
          },
          {
            index: 1,
            id: 'call_1',
            type: 'function',
            function: { name: 'get_time', arguments: '{"timezone":"America/Los_Angeles"}' },
          },
        ],
        finishReason: 'tool_calls',
        rawFinishReason: 'STOP',
      },
      {
        type: 'usage',
        usage: { promptTokens: 71, completionTokens: 42 + 17, reasoningTokens: 17 },
      },
    ]);
  });

  it('keeps tool-call indices running across chunks', () => {
    const mapper = new GeminiStreamMapper(counter());
    const call = (name: string) =>
      JSON.stringify({
        candidates: [{ content: { parts: [{ functionCall: { name, args: {} } }], role: 'model' } }],
      });
    expect(mapper.map(call('a'))).toMatchObject([{ toolCalls: [{ index: 0, id: 'call_0' }] }]);
    expect(mapper.map(call('b'))).toMatchObject([{ toolCalls: [{ index: 1, id: 'call_1' }] }]);
  });

  it('reports the last usage at the end of a stream that never said why it stopped', () => {
    const mapper = new GeminiStreamMapper();
    mapper.map(
      JSON.stringify({
        candidates: [{ content: { parts: [{ text: 'a' }] } }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 },
      }),
    );
    mapper.map(
      JSON.stringify({
        candidates: [{ content: { parts: [{ text: 'b' }] } }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
      }),
    );
    expect(mapper.finish()).toEqual([
      { type: 'usage', usage: { promptTokens: 3, completionTokens: 2 } },
    ]);
    expect(mapper.finish()).toEqual([]);
  });

  it('throws an error payload inside the stream as an UpstreamError of the right kind', () => {
    expect(() => new GeminiStreamMapper().map(fixture('error-unavailable.json'))).toThrow(
      expect.objectContaining({ kind: 'upstream_overloaded', retryable: true }),
    );
  });
});

describe('Gemini error mapping', () => {
  it.each([
    [400, 'error-invalid-argument.json', 'bad_request'],
    [400, 'error-context-length.json', 'context_length'],
    [400, 'error-invalid-api-key.json', 'upstream_auth'],
    [503, 'error-unavailable.json', 'upstream_overloaded'],
  ])('HTTP %i %s -> %s', (status, file, kind) => {
    expect(geminiErrorFromResponse(status, fixture(file))).toMatchObject({
      kind,
      options: { upstreamStatus: status },
    });
  });

  it('takes the retry delay of a RESOURCE_EXHAUSTED answer from RetryInfo, or from Retry-After when sent', () => {
    expect(geminiErrorFromResponse(429, fixture('error-rate-limit.json'))).toMatchObject({
      kind: 'rate_limited',
      options: { retryAfterSeconds: 37 },
    });
    expect(
      geminiErrorFromResponse(429, fixture('error-rate-limit.json'), '5').options.retryAfterSeconds,
    ).toBe(5);
  });

  it.each([
    ['FAILED_PRECONDITION', 400, 'upstream_auth'],
    ['UNAUTHENTICATED', 401, 'upstream_auth'],
    ['PERMISSION_DENIED', 403, 'upstream_auth'],
    ['NOT_FOUND', 404, 'unavailable'],
    ['INTERNAL', 500, 'unavailable'],
    ['DEADLINE_EXCEEDED', 504, 'timeout'],
  ])('status %s (HTTP %i) -> %s', (status, code, kind) => {
    expect(
      geminiErrorFromResponse(code, JSON.stringify({ error: { code, message: 'x', status } })).kind,
    ).toBe(kind);
  });

  it('reads the array-wrapped form and falls back to the HTTP status for bodies that are not Google JSON', () => {
    expect(geminiErrorFromResponse(429, `[${fixture('error-rate-limit.json')}]`).kind).toBe(
      'rate_limited',
    );
    expect(geminiErrorFromResponse(502, '<html>Bad Gateway</html>').kind).toBe('unavailable');
  });
});
