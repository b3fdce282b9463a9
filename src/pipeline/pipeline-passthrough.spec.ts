import { UpstreamError } from '../common/errors/upstream.error';
import type {
  NativeStreamPart,
  NativeUpstreamRequest,
  ProviderAdapter,
  UpstreamChatRequest,
} from '../providers/provider-adapter.interface';
import type { CanonicalRequest } from './canonical';
import { aPipelineContext, pipelineFixture, readStream } from './pipeline.fixture';

// A request that carries the client's own body (an Anthropic Messages client): deployments of
// that provider get the body as it is, the others the canonical conversation.

const upstream = { base_url: 'http://127.0.0.1:9/v1', api_key: 'k', model: 'upstream-model' };
const models = {
  beta: [
    { provider: 'anthropic', name: 'claude', ...upstream },
    { provider: 'openai', name: 'gpt', ...upstream, weight: 0 },
  ],
};

const nativeBody = { model: 'beta', max_tokens: 5, messages: [], thinking: { type: 'enabled' } };
const request: CanonicalRequest = {
  endpoint: 'messages',
  model: 'beta',
  messages: [{ role: 'user', content: 'hi' }],
  parameters: { max_tokens: 5 },
  native: { provider: 'anthropic', body: nativeBody, headers: { 'anthropic-beta': 'x' } },
};

const usage = { promptTokens: 4, completionTokens: 2 };

function adapters(native: Partial<NonNullable<ProviderAdapter['native']>>) {
  const seen: { native: NativeUpstreamRequest[]; translated: UpstreamChatRequest[] } = {
    native: [],
    translated: [],
  };
  const translate = (request: UpstreamChatRequest) => {
    seen.translated.push(request);
    return Promise.resolve({ content: 'translated', finishReason: 'stop' as const, usage });
  };
  const anthropic: ProviderAdapter = {
    provider: 'anthropic',
    complete: translate,
    stream: () => Promise.reject(new Error('not used')),
    native: {
      complete: () => Promise.reject(new Error('not scripted')),
      stream: () => Promise.reject(new Error('not scripted')),
      ...native,
    },
  };
  const openai: ProviderAdapter = {
    provider: 'openai',
    complete: translate,
    stream: () => Promise.reject(new Error('not used')),
  };
  return { list: [anthropic, openai], seen };
}

describe('Pipeline pass-through', () => {
  it("sends the client's body unchanged to a deployment of its provider and answers that deployment's JSON", async () => {
    const { list, seen } = adapters({
      complete: (sent) => {
        seen.native.push(sent);
        return Promise.resolve({ body: { type: 'message', id: 'msg_1' }, usage });
      },
    });
    const fixture = await pipelineFixture({ adapters: list, models });
    const answer = await fixture.pipeline.complete(request, aPipelineContext());

    expect(answer).toMatchObject({ type: 'native', body: { type: 'message', id: 'msg_1' }, usage });
    expect(seen.native).toHaveLength(1);
    expect(seen.native[0].body).toBe(nativeBody);
    expect(seen.native[0].headers).toEqual({ 'anthropic-beta': 'x' });
    expect(seen.native[0].deployment.name).toBe('claude');
    expect(seen.translated).toEqual([]);
    expect(fixture.outcomes).toMatchObject([{ status: 'completed', deployment: 'claude', usage }]);
  });

  it('translates for a deployment of another provider when failover lands there', async () => {
    const { list, seen } = adapters({
      complete: () => Promise.reject(new UpstreamError('unavailable', 'HTTP 503')),
    });
    const fixture = await pipelineFixture({
      adapters: list,
      models,
      env: { ROUTER_BACKOFF_BASE_MS: 1 },
    });
    const answer = await fixture.pipeline.complete(request, aPipelineContext());

    expect(answer).toMatchObject({ type: 'chat', result: { content: 'translated' } });
    expect(seen.translated).toHaveLength(1);
    expect(seen.translated[0]).toMatchObject({
      messages: request.messages,
      parameters: request.parameters,
    });
    expect(fixture.outcomes).toMatchObject([{ deployment: 'gpt', attempts: 2 }]);
  });

  it("relays a pass-through stream's events as they came, its usage taken out and charged", async () => {
    const events: NativeStreamPart[][] = [
      [
        { type: 'native', event: 'message_start', data: '{"type":"message_start"}' },
        { type: 'usage', usage: { promptTokens: 4, completionTokens: 0 } },
      ],
      [{ type: 'native', event: 'content_block_delta', data: '{"d":"Hi"}', outputChars: 2 }],
      [
        { type: 'native', event: 'message_stop', data: '{"type":"message_stop"}' },
        { type: 'usage', usage },
      ],
    ];
    async function* answer() {
      yield* events;
    }
    const { list } = adapters({ stream: () => Promise.resolve(answer()) });
    const fixture = await pipelineFixture({ adapters: list, models });
    const { batches, end } = await readStream(
      await fixture.pipeline.stream(request, aPipelineContext()),
    );

    expect(batches).toEqual([[events[0][0]], events[1], [events[2][0]]]);
    expect(end.usage).toEqual(usage);
    expect(fixture.outcomes).toMatchObject([{ status: 'completed', stream: true, usage }]);
  });
});
