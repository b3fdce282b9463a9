import { ClientDisconnectedError } from '../../common/errors/client-disconnected.error';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import type { UpstreamChatRequest, UpstreamStreamPart } from '../provider-adapter.interface';
import { MockAdapter } from './mock.adapter';

function request(
  mock: DeploymentConfig['mock'],
  signal = new AbortController().signal,
): UpstreamChatRequest {
  const deployment: DeploymentConfig = {
    name: 'mock/0',
    publicModel: 'alpha-k3',
    provider: 'mock',
    type: 'chat',
    timeoutMs: 1000,
    firstTokenTimeoutMs: 1000,
    maxConcurrency: null,
    maxQueueMs: 0,
    headers: {},
    defaultMaxTokens: 4096,
    mock,
  };
  return {
    deployment,
    messages: [{ role: 'user', content: 'ping' }],
    parameters: {},
    signal,
    requestId: 'req_1',
  };
}

describe('MockAdapter.stream', () => {
  const adapter = new MockAdapter();

  it('streams the answer in at most chunk_count content chunks, then usage', async () => {
    const parts: UpstreamStreamPart[] = [];
    for await (const batch of await adapter.stream(
      request({ latencyMs: 0, chunkDelayMs: 0, chunkCount: 3 }),
    ))
      parts.push(...batch);

    const deltas = parts.filter((part) => part.type === 'delta');
    expect(deltas).toHaveLength(3);
    expect(deltas.map((part) => part.content).join('')).toBe(
      'This is a mock answer from alpha-k3. You said: "ping"',
    );
    expect(deltas.map((part) => part.finishReason)).toEqual([undefined, undefined, 'stop']);
    expect(parts[parts.length - 1]).toEqual({
      type: 'usage',
      usage: { promptTokens: 1, completionTokens: 10 },
    });
  });

  it('stops waiting at once when the client disconnects, with the abort reason', async () => {
    const controller = new AbortController();
    const iterator = (
      await adapter.stream(
        request({ latencyMs: 0, chunkDelayMs: 60_000, chunkCount: 4 }, controller.signal),
      )
    )[Symbol.asyncIterator]();
    await iterator.next();

    const second = iterator.next();
    controller.abort(new ClientDisconnectedError());

    // The same error the HTTP adapter throws, so the stream ends as a disconnect and not a failure.
    await expect(second).rejects.toBeInstanceOf(ClientDisconnectedError);
  });
});

describe('MockAdapter stop sequences', () => {
  const adapter = new MockAdapter();
  const withStop = (stop: unknown): UpstreamChatRequest =>
    Object.assign(request({ latencyMs: 0, chunkDelayMs: 0, chunkCount: 2 }), {
      parameters: { stop },
    });

  it('ends the answer before the first stop sequence in it, and says which one matched', async () => {
    const result = await adapter.complete(withStop(['You said', 'mock']));
    expect(result).toEqual(
      expect.objectContaining({
        content: 'This is a ',
        finishReason: 'stop',
        stopSequence: 'mock',
      }),
    );
    const parts: UpstreamStreamPart[] = [];
    for await (const batch of await adapter.stream(withStop('mock'))) parts.push(...batch);
    const deltas = parts.filter((part) => part.type === 'delta');
    expect(deltas.map((part) => part.content).join('')).toBe('This is a ');
    expect(deltas[deltas.length - 1]).toEqual(
      expect.objectContaining({ finishReason: 'stop', stopSequence: 'mock' }),
    );
  });

  it('answers in full when no stop sequence occurs', async () => {
    const result = await adapter.complete(withStop(['zebra']));
    expect(result.stopSequence).toBeUndefined();
    expect(result.content).toBe('This is a mock answer from alpha-k3. You said: "ping"');
  });
});
