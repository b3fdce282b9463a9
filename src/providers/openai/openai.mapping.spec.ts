import type { DeploymentConfig } from '../../config/gateway-config.types';
import type { UpstreamChatRequest } from '../provider-adapter.interface';
import { UpstreamError } from '../../common/errors/upstream.error';
import { buildHeaders, buildRequestBody, mapCompletion, mapStreamEvent } from './openai.mapping';

const deployment: DeploymentConfig = {
  name: 'alpha-k3/0',
  publicModel: 'alpha-k3',
  provider: 'openai',
  type: 'chat',
  baseUrl: 'http://upstream/v1',
  apiKey: 'sk-up',
  upstreamModel: 'gpt-up',
  timeoutMs: 1000,
  firstTokenTimeoutMs: 1000,
  maxConcurrency: null,
  maxQueueMs: 0,
  headers: { 'OpenAI-Organization': 'org-1' },
  defaultMaxTokens: 4096,
  mock: { latencyMs: 0, chunkCount: 1, chunkDelayMs: 0 },
};

const request: UpstreamChatRequest = {
  deployment,
  messages: [{ role: 'user', content: 'hello' }],
  parameters: { temperature: 0.3, max_tokens: 10 },
  signal: new AbortController().signal,
  requestId: 'req_1',
};

describe('OpenAI-compatible request mapping', () => {
  it('sends the upstream model id and the passed-through parameters', () => {
    expect(buildRequestBody(request, false)).toEqual({
      model: 'gpt-up',
      messages: [{ role: 'user', content: 'hello' }],
      temperature: 0.3,
      max_tokens: 10,
    });
  });

  it("leaves out Anthropic's top_k, which OpenAI's API refuses", () => {
    const withTopK = Object.assign({}, request, { parameters: { temperature: 0.3, top_k: 40 } });
    expect(buildRequestBody(withTopK, false)).toEqual({
      model: 'gpt-up',
      messages: [{ role: 'user', content: 'hello' }],
      temperature: 0.3,
    });
  });

  it('always asks a stream for usage', () => {
    expect(buildRequestBody(request, true)).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('authenticates with the deployment key; configured headers cannot override it', () => {
    const headers = buildHeaders(
      { ...deployment, headers: { Authorization: 'Bearer evil', 'X-Extra': '1' } },
      'req_9',
    );
    expect(headers).toMatchObject({
      authorization: 'Bearer sk-up',
      'x-extra': '1',
      'x-request-id': 'req_9',
    });
  });
});

describe('OpenAI-compatible response mapping', () => {
  it('maps a completion and its usage', () => {
    const result = mapCompletion(
      {
        choices: [{ message: { role: 'assistant', content: 'hi' }, finish_reason: 'length' }],
        usage: { prompt_tokens: 3, completion_tokens: 1 },
      },
      request,
    );
    expect(result).toEqual({
      content: 'hi',
      toolCalls: undefined,
      finishReason: 'length',
      rawFinishReason: 'length',
      usage: { promptTokens: 3, completionTokens: 1 },
    });
  });

  it('estimates usage when the provider reports none, and normalises unknown finish reasons', () => {
    const result = mapCompletion(
      { choices: [{ message: { content: '12345678' }, finish_reason: 'eos' }] },
      request,
    );
    expect(result.finishReason).toBe('stop');
    expect(result.rawFinishReason).toBe('eos');
    expect(result.usage.completionTokens).toBe(2);
    expect(result.usage.promptTokens).toBeGreaterThan(0);
  });

  it.each([[{}], [{ choices: [] }], [{ choices: [{ message: { content: null } }] }], [null]])(
    'rejects %j as an invalid response',
    (body) => {
      expect(() => mapCompletion(body, request)).toThrow(UpstreamError);
    },
  );

  it('maps stream events: content, finish on the same event, usage, errors', () => {
    expect(
      mapStreamEvent(
        '{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
      ),
    ).toEqual([]);
    expect(
      mapStreamEvent('{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}'),
    ).toEqual([{ type: 'delta', content: 'Hi', toolCalls: undefined }]);
    expect(
      mapStreamEvent('{"choices":[{"index":0,"delta":{"content":"!"},"finish_reason":"stop"}]}'),
    ).toEqual([
      {
        type: 'delta',
        content: '!',
        toolCalls: undefined,
        finishReason: 'stop',
        rawFinishReason: 'stop',
      },
    ]);
    expect(
      mapStreamEvent(
        '{"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}}',
      ),
    ).toEqual([{ type: 'usage', usage: { promptTokens: 4, completionTokens: 2 } }]);
    expect(() => mapStreamEvent('{"error":{"message":"boom","type":"server_error"}}')).toThrow(
      UpstreamError,
    );
    expect(() => mapStreamEvent('not json')).toThrow(UpstreamError);
  });
});

describe('OpenAI-compatible mapping of n > 1 and logprobs', () => {
  const logprobs = {
    content: [{ token: 'a', logprob: -0.1, bytes: [97], top_logprobs: [] }],
    refusal: null,
  };

  it('keeps every choice, in index order, each with its logprobs', () => {
    const result = mapCompletion(
      {
        choices: [
          { index: 1, message: { content: 'b' }, finish_reason: 'length', logprobs: null },
          { index: 0, message: { content: 'a' }, finish_reason: 'stop', logprobs },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 2 },
      },
      request,
    );
    expect(result).toMatchObject({
      content: 'a',
      finishReason: 'stop',
      logprobs,
      moreChoices: [{ content: 'b', finishReason: 'length' }],
    });
    expect(result.moreChoices?.[0].logprobs).toBeUndefined();
  });

  it('tags stream deltas with their choice index and logprobs', () => {
    const parts = mapStreamEvent(
      JSON.stringify({
        choices: [
          { index: 0, delta: { content: 'a' }, logprobs },
          { index: 2, delta: { content: 'c' }, finish_reason: 'stop' },
        ],
      }),
    );
    expect(parts).toEqual([
      { type: 'delta', content: 'a', toolCalls: undefined, logprobs },
      {
        type: 'delta',
        choiceIndex: 2,
        content: 'c',
        toolCalls: undefined,
        finishReason: 'stop',
        rawFinishReason: 'stop',
      },
    ]);
  });
});
