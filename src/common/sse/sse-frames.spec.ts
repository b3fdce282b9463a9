import { UpstreamError } from '../errors/upstream.error';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';
import { GatewayException } from '../errors/gateway.exception';
import { DONE_FRAME, HEARTBEAT_FRAME, sseFrames } from './sse-frames';

/** A source that yields `values`, then fails with `error` if given; records whether it was closed. */
function source(values: unknown[], error?: unknown) {
  const state = { closed: false };
  async function* generate() {
    try {
      yield* values;
      if (error) throw error;
    } finally {
      state.closed = true;
    }
  }
  return { iterator: generate(), state };
}

async function collect(frames: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const frame of frames) all.push(frame);
  return all;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('sseFrames', () => {
  it('writes one `data: <json>` event per chunk and ends with data: [DONE]', async () => {
    const { iterator } = source([{ a: 1 }, { b: 'é👋' }]);
    expect(await collect(sseFrames(iterator, { heartbeatMs: 0 }))).toEqual([
      'data: {"a":1}\n\n',
      'data: {"b":"é👋"}\n\n',
      'data: [DONE]\n\n',
    ]);
    expect(DONE_FRAME).toBe('data: [DONE]\n\n');
  });

  it('keeps a chunk on one line even when its strings hold newlines', async () => {
    const { iterator } = source([{ text: 'line one\n\nline two' }]);
    const [frame] = await collect(sseFrames(iterator, { heartbeatMs: 0 }));
    expect(frame).toBe('data: {"text":"line one\\n\\nline two"}\n\n');
  });

  it('writes a comment heartbeat while the source is silent, then carries on', async () => {
    const gate = deferred<void>();
    async function* slow() {
      yield { n: 1 };
      await gate.promise;
      yield { n: 2 };
    }
    const frames = sseFrames(slow(), { heartbeatMs: 5 });

    expect((await frames.next()).value).toBe('data: {"n":1}\n\n');
    // The source is blocked on the gate, so only a heartbeat can come next.
    expect((await frames.next()).value).toBe(HEARTBEAT_FRAME);
    expect((await frames.next()).value).toBe(HEARTBEAT_FRAME);
    gate.resolve();
    expect(await collect(frames)).toEqual(
      expect.arrayContaining(['data: {"n":2}\n\n', DONE_FRAME]),
    );
    expect(HEARTBEAT_FRAME).toBe(': keep-alive\n\n');
  });

  it('does not skip or repeat a chunk that arrives after a heartbeat', async () => {
    const gate = deferred<void>();
    async function* slow() {
      await gate.promise;
      yield { n: 1 };
    }
    const frames = sseFrames(slow(), { heartbeatMs: 5 });
    expect((await frames.next()).value).toBe(HEARTBEAT_FRAME);
    gate.resolve();
    const rest = (await collect(frames)).filter((frame) => frame !== HEARTBEAT_FRAME);
    expect(rest).toEqual(['data: {"n":1}\n\n', DONE_FRAME]);
  });

  it('turns an upstream failure after the first chunk into one error event, without [DONE]', async () => {
    const onError = jest.fn();
    const failure = new UpstreamError('unavailable', 'socket hang up, raw body: secret');
    const { iterator } = source([{ n: 1 }], failure);

    const frames = await collect(sseFrames(iterator, { heartbeatMs: 0, onError }));

    expect(frames).toEqual([
      'data: {"n":1}\n\n',
      'data: {"error":{"message":"The model provider failed to answer.","type":"upstream_error","param":null,"code":"upstream_error","source":"upstream"}}\n\n',
    ]);
    expect(onError).toHaveBeenCalledWith(failure);
  });

  it('sends a GatewayException as its own envelope and hides unknown errors behind internal_error', async () => {
    const known = source([], new GatewayException('upstream_timeout'));
    expect(
      JSON.parse((await collect(sseFrames(known.iterator, { heartbeatMs: 0 })))[0].slice(6)),
    ).toEqual({
      error: {
        message: 'The model provider did not answer in time.',
        type: 'timeout',
        param: null,
        code: 'upstream_timeout',
        source: 'upstream',
      },
    });
    const unknown = source([], new Error('database password is hunter2'));
    const [frame] = await collect(sseFrames(unknown.iterator, { heartbeatMs: 0 }));
    const parsed = JSON.parse(frame.slice(6));
    expect(parsed.error).toMatchObject({ code: 'internal_error', source: 'gateway' });
    expect(frame).not.toContain('hunter2');
  });

  it('ends silently when the source stops because the client disconnected', async () => {
    const onError = jest.fn();
    const { iterator } = source([{ n: 1 }], new ClientDisconnectedError());
    expect(await collect(sseFrames(iterator, { heartbeatMs: 0, onError }))).toEqual([
      'data: {"n":1}\n\n',
    ]);
    expect(onError).not.toHaveBeenCalled();
  });

  it('closes the source when the consumer stops early', async () => {
    const { iterator, state } = source([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const frames = sseFrames(iterator, { heartbeatMs: 0 });
    await frames.next();
    await frames.return(undefined);
    expect(state.closed).toBe(true);
  });
});
