import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { UpstreamError } from '../errors/upstream.error';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';
import { GatewayException } from '../errors/gateway.exception';
import { DONE_FRAME, HEARTBEAT_FRAME } from './sse-frames';
import { sseReadable } from './sse-readable';

/**
 * A source that yields `values` one per batch, then fails with `error` if given; records whether
 * it was closed.
 */
function source(values: unknown[], error?: unknown) {
  const state = { closed: false };
  async function* generate() {
    try {
      for (const value of values) yield [value];
      if (error) throw error;
    } finally {
      state.closed = true;
    }
  }
  return { iterator: generate(), state };
}

/** Every pushed frame, in order, until the stream ends ('data' hands out one push each). */
async function collect(stream: Readable): Promise<string[]> {
  const frames: string[] = [];
  stream.on('data', (chunk: Buffer) => frames.push(chunk.toString('utf8')));
  await once(stream, 'end');
  return frames;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('sseReadable', () => {
  it('writes one `data: <json>` event per chunk and ends with data: [DONE]', async () => {
    const { iterator } = source([{ a: 1 }, { b: 'é👋' }]);
    expect(await collect(sseReadable(iterator, { heartbeatMs: 0 }))).toEqual([
      'data: {"a":1}\n\n',
      'data: {"b":"é👋"}\n\n',
      'data: [DONE]\n\n',
    ]);
    expect(DONE_FRAME).toBe('data: [DONE]\n\n');
  });

  it('keeps a chunk on one line even when its strings hold newlines', async () => {
    const { iterator } = source([{ text: 'line one\n\nline two' }]);
    const [frame] = await collect(sseReadable(iterator, { heartbeatMs: 0 }));
    expect(frame).toBe('data: {"text":"line one\\n\\nline two"}\n\n');
  });

  it('writes comment heartbeats while the source is silent, then carries on', async () => {
    const gate = deferred<void>();
    async function* slow() {
      yield [{ n: 1 }];
      await gate.promise;
      yield [{ n: 2 }];
    }
    const stream = sseReadable(slow(), { heartbeatMs: 5 });
    const frames: string[] = [];
    const ended = collect(stream).then((all) => frames.push(...all));
    const seen: string[] = [];
    stream.on('data', (chunk: Buffer) => seen.push(chunk.toString('utf8')));
    // The source is blocked on the gate, so only heartbeats can come after the first chunk.
    while (seen.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen.slice(0, 3)).toEqual(['data: {"n":1}\n\n', HEARTBEAT_FRAME, HEARTBEAT_FRAME]);
    gate.resolve();
    await ended;
    expect(frames.slice(-2)).toEqual(['data: {"n":2}\n\n', DONE_FRAME]);
    expect(frames.slice(1, -2).every((frame) => frame === HEARTBEAT_FRAME)).toBe(true);
    expect(HEARTBEAT_FRAME).toBe(': keep-alive\n\n');
  });

  it('does not skip or repeat a chunk that arrives after a heartbeat', async () => {
    const gate = deferred<void>();
    async function* slow() {
      await gate.promise;
      yield [{ n: 1 }];
    }
    const stream = sseReadable(slow(), { heartbeatMs: 5 });
    const seen: string[] = [];
    const ended = collect(stream);
    stream.on('data', (chunk: Buffer) => seen.push(chunk.toString('utf8')));
    while (seen.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen[0]).toBe(HEARTBEAT_FRAME);
    gate.resolve();
    const rest = (await ended).filter((frame) => frame !== HEARTBEAT_FRAME);
    expect(rest).toEqual(['data: {"n":1}\n\n', DONE_FRAME]);
  });

  it('sends no heartbeat while the client is not reading (backpressure), nor pulls the source', async () => {
    let pulls = 0;
    const endless: AsyncIterator<unknown[]> = {
      next: () => {
        pulls++;
        return Promise.resolve({ done: false, value: [{ n: pulls }] });
      },
    };
    const stream = sseReadable(endless, { heartbeatMs: 2 });
    expect(stream.read(0)).toBeNull();
    for (let i = 0; i < 5; i++) await turn();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // One frame buffered for the reader, and nothing more until it is read.
    expect(pulls).toBe(1);
    expect(stream.readableLength).toBe('data: {"n":1}\n\n'.length);
    expect(stream.read()?.toString()).toBe('data: {"n":1}\n\n');
    for (let i = 0; i < 5; i++) await turn();
    expect(pulls).toBe(2);
    stream.destroy();
  });

  it('turns an upstream failure after the first chunk into one error event, without [DONE]', async () => {
    const onError = jest.fn();
    const failure = new UpstreamError('unavailable', 'socket hang up, raw body: secret');
    const { iterator } = source([{ n: 1 }], failure);

    const frames = await collect(sseReadable(iterator, { heartbeatMs: 0, onError }));

    expect(frames).toEqual([
      'data: {"n":1}\n\n',
      'data: {"error":{"message":"The model provider failed to answer.","type":"upstream_error","param":null,"code":"upstream_error","source":"upstream"}}\n\n',
    ]);
    expect(onError).toHaveBeenCalledWith(failure);
  });

  it('sends a GatewayException as its own envelope and hides unknown errors behind internal_error', async () => {
    const known = source([], new GatewayException('upstream_timeout'));
    expect(
      JSON.parse((await collect(sseReadable(known.iterator, { heartbeatMs: 0 })))[0].slice(6)),
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
    const [frame] = await collect(sseReadable(unknown.iterator, { heartbeatMs: 0 }));
    const parsed = JSON.parse(frame.slice(6));
    expect(parsed.error).toMatchObject({ code: 'internal_error', source: 'gateway' });
    expect(frame).not.toContain('hunter2');
  });

  it('ends silently when the source stops because the client disconnected', async () => {
    const onError = jest.fn();
    const { iterator } = source([{ n: 1 }], new ClientDisconnectedError());
    expect(await collect(sseReadable(iterator, { heartbeatMs: 0, onError }))).toEqual([
      'data: {"n":1}\n\n',
    ]);
    expect(onError).not.toHaveBeenCalled();
  });

  it("closes the source when the client leaves early, and emits 'close' after it has", async () => {
    const { iterator, state } = source([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const stream = sseReadable(iterator, { heartbeatMs: 5 });
    stream.read(0);
    await turn();
    stream.destroy();
    await once(stream, 'close');
    expect(state.closed).toBe(true);
  });

  it('runs beforePush before every frame it pushes', async () => {
    const { iterator } = source([{ n: 1 }, { n: 2 }]);
    const order: string[] = [];
    const stream = sseReadable(iterator, {
      heartbeatMs: 0,
      beforePush: () => order.push('before'),
    });
    stream.on('data', (chunk: Buffer) => order.push(chunk.toString('utf8')));
    await once(stream, 'end');
    expect(order).toEqual([
      'before',
      'data: {"n":1}\n\n',
      'before',
      'data: {"n":2}\n\n',
      'before',
      DONE_FRAME,
    ]);
  });

  it('writes a batch as its frames in one push, and skips an empty batch', async () => {
    async function* batches() {
      yield [{ n: 1 }, { n: 2 }];
      yield [];
      yield [{ n: 3 }];
    }
    expect(await collect(sseReadable(batches(), { heartbeatMs: 0 }))).toEqual([
      'data: {"n":1}\n\ndata: {"n":2}\n\n',
      'data: {"n":3}\n\n',
      DONE_FRAME,
    ]);
  });
});
