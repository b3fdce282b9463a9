import { manualClientConnection } from '../common/http/client-connection.fixture';
import type { ProviderAdapter } from '../providers/provider-adapter.interface';
import * as fixtures from './pipeline.fixture';

const { A_REQUEST: request, aPipelineContext: context, HELLO_WORLD: helloWorld } = fixtures;
const { oneEach, pipelineFixture, readStream: drainStream, streamingAdapter: streaming } = fixtures;

describe('Pipeline and the request drain', () => {
  it('holds an answer until its outcome is recorded: answered, failed, or its client gone', async () => {
    let settle: { resolve: (answer: unknown) => void; reject: (error: Error) => void } | undefined;
    const complete = () => new Promise((resolve, reject) => (settle = { resolve, reject }));
    const fixture = await pipelineFixture({
      adapters: [{ ...streaming([]).adapter, complete: complete as ProviderAdapter['complete'] }],
    });
    const { drain } = fixture;
    const held: number[] = [];
    const noting = (client = manualClientConnection()) => ({
      ...context(client),
      report: () => void held.push(drain.inFlight),
    });
    const upstreamCalled = async () => {
      while (!settle) await new Promise((resolve) => setImmediate(resolve));
      const called = settle;
      settle = undefined;
      return called;
    };

    const answering = fixture.pipeline.complete(request, noting());
    (await upstreamCalled()).resolve({
      content: 'Hello',
      finishReason: 'stop',
      usage: { promptTokens: 3, completionTokens: 1 },
    });
    await answering;
    expect(held).toEqual([1]);
    expect(drain.inFlight).toBe(0);

    const failing = fixture.pipeline.complete(request, noting());
    (await upstreamCalled()).reject(new Error('upstream gone'));
    await expect(failing).rejects.toThrow();
    expect(held).toEqual([1, 1]);
    expect(drain.inFlight).toBe(0);

    const client = manualClientConnection();
    const abandoned = fixture.pipeline.complete(request, noting(client));
    await upstreamCalled();
    client.leave();
    await expect(abandoned).rejects.toThrow();
    expect(held).toEqual([1, 1, 1]);
    expect(drain.inFlight).toBe(0);
  });

  it('holds a stream after it is handed out until its relay has recorded the outcome', async () => {
    const fixture = await pipelineFixture({ adapters: [streaming(oneEach(helloWorld)).adapter] });
    const { drain } = fixture;
    const held: number[] = [];
    const noting = { ...context(), report: () => void held.push(drain.inFlight) };
    const finished = await fixture.pipeline.stream(request, noting);
    expect(drain.inFlight).toBe(1);
    await drainStream(finished);
    expect(held).toEqual([1]);
    expect(drain.inFlight).toBe(0);

    const left = await fixture.pipeline.stream(request, noting);
    await left.next();
    expect(drain.inFlight).toBe(1);
    await left.return!(undefined as never);
    expect(held).toEqual([1, 1]);
    expect(drain.inFlight).toBe(0);
  });

  it('lets go of a stream whose outcome could not be recorded', async () => {
    const fixture = await pipelineFixture({ adapters: [streaming(oneEach(helloWorld)).adapter] });
    const stream = await fixture.pipeline.stream(request, {
      ...context(),
      report: () => {
        throw new Error('recording failed');
      },
    });
    await stream.next();
    await expect(stream.return!(undefined as never)).rejects.toThrow('recording failed');
    expect(fixture.drain.inFlight).toBe(0);
  });

  it('lets go of a stream that fails before its first token, and of one refused before routing', async () => {
    const { adapter } = streaming([], {
      stream: () => Promise.reject(new Error('connection refused')),
    });
    const fixture = await pipelineFixture({ adapters: [adapter] });
    await expect(fixture.pipeline.stream(request, context())).rejects.toThrow();
    expect(fixture.drain.inFlight).toBe(0);

    await expect(
      fixture.pipeline.stream({ ...request, model: 'no-such-model' }, context()),
    ).rejects.toThrow();
    expect(fixture.drain.inFlight).toBe(0);
  });
});
