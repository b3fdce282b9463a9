import { request } from 'node:http';
import { connect } from 'node:net';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';
import { UpstreamError } from '../errors/upstream.error';
import { listen } from '../http/loopback-server.fixture';
import type { SseEncoder } from './sse-encoder';
import { eventFrame } from './sse-frames';
import { SseStream } from './sse-stream';
import { deferred, encoder, OPTIONS, sleep, source, StreamServer } from './sse-stream.fixture';

// How a stream ends: its closing frames, an error event, the client leaving, a stalled client.
describe('SseStream endings', () => {
  let server: StreamServer;

  beforeAll(async () => (server = await StreamServer.start()));
  afterAll(() => server.stop());

  it("turns a failure after the first chunk into the encoder's error event, without [DONE]", async () => {
    const onError = jest.fn();
    const failure = new UpstreamError('unavailable', 'socket hang up');
    const { iterator } = source([{ n: 1 }], failure);
    expect(await server.body(new SseStream(iterator, encoder, { ...OPTIONS, onError }))).toBe(
      'data: {"n":1}\n\n' + 'data: {"error":{"message":"unavailable: socket hang up"}}\n\n',
    );
    expect(onError).toHaveBeenCalledWith(failure);
  });

  it("closes with the encoder's frames for the source's return value, awaited when they wait", async () => {
    async function* events() {
      yield [{ type: 'delta', text: 'Hi' }];
      return { usage: 7 };
    }
    const named: SseEncoder<{ type: string }, { usage: number }> = {
      heartbeat: 'event: ping\ndata: {"type":"ping"}\n\n',
      encode: (batch) => batch.map((event) => eventFrame(event.type, event)).join(''),
      // As a format that must store its answer before its last event.
      end: async ({ usage }) => {
        await sleep(10);
        return eventFrame('stop', { usage });
      },
      error: () => eventFrame('error', {}),
    };
    expect(await server.body(new SseStream(events(), named, OPTIONS))).toBe(
      'event: delta\ndata: {"type":"delta","text":"Hi"}\n\n' + 'event: stop\ndata: {"usage":7}\n\n',
    );
  });

  it('ends with the error event when the closing frames fail, and skips batches that encode to nothing', async () => {
    const onError = jest.fn();
    const { iterator } = source([{ n: 1 }, { skip: true }, { n: 2 }]);
    const failing: SseEncoder<unknown, unknown> = {
      ...encoder,
      encode: (batch) => ((batch[0] as { skip?: boolean }).skip ? '' : encoder.encode(batch)),
      end: () => Promise.reject(new Error('store unreachable')),
    };
    expect(await server.body(new SseStream(iterator, failing, { ...OPTIONS, onError }))).toBe(
      'data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"error":{"message":"store unreachable"}}\n\n',
    );
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('ends with an error event and closes the source when the encoder fails on a batch', async () => {
    const { iterator, state } = source([{ n: 1 }, { n: 2 }]);
    const broken: SseEncoder<unknown, unknown> = {
      ...encoder,
      encode: (batch) => {
        if ((batch[0] as { n: number }).n === 2) throw new Error('cannot encode');
        return encoder.encode(batch);
      },
    };
    expect(await server.body(new SseStream(iterator, broken, OPTIONS))).toBe(
      'data: {"n":1}\n\ndata: {"error":{"message":"cannot encode"}}\n\n',
    );
    while (!state.closed) await sleep(5);
  });

  it('ends silently when the source stops because the client disconnected', async () => {
    const onError = jest.fn();
    const { iterator } = source([{ n: 1 }], new ClientDisconnectedError());
    expect(await server.body(new SseStream(iterator, encoder, { ...OPTIONS, onError }))).toBe(
      'data: {"n":1}\n\n',
    );
    expect(onError).not.toHaveBeenCalled();
  });

  it('closes the source when the client leaves, and settles `closed` only after its cleanup', async () => {
    const gate = deferred();
    const state = { recorded: false };
    async function* generate() {
      try {
        yield [{ n: 1 }];
        await gate.promise;
        yield [{ n: 2 }];
      } finally {
        // Settling tokens and recording usage take a moment (the drain waits for it).
        await sleep(30);
        state.recorded = true;
      }
    }
    const stream = new SseStream(generate(), encoder, { ...OPTIONS, heartbeatMs: 5 });
    const response = await server.open(stream);
    response.destroy();
    // The pull in flight waits on the gate; return() waits for it, then runs the finally.
    setTimeout(() => gate.resolve(), 20);
    await stream.closed;
    expect(state.recorded).toBe(true);
  });

  it('closes a source it never pulled when the client left before the response was written', async () => {
    const { iterator, state } = source([{ n: 1 }]);
    // Started, as the pipeline hands its streams out.
    await iterator.next();
    const stream = new SseStream(iterator, encoder, OPTIONS);
    const gone = await listen((_request, response) => {
      response.socket!.destroy();
      setImmediate(() => stream.writeTo(response));
    });
    const sent = request({ host: '127.0.0.1', port: gone.port, method: 'POST', agent: false });
    sent.on('error', () => undefined);
    sent.end();
    await stream.closed;
    expect(state.closed).toBe(true);
    await gone.close();
  });

  it('closes the source of a response queued behind a pipelined one when the connection goes', async () => {
    const { iterator, state } = source([{ n: 1 }]);
    await iterator.next();
    const stream = new SseStream(iterator, encoder, OPTIONS);
    let queued = false;
    const pipelined = await listen((request, response) => {
      // The first request is never answered, so the second one's response waits without a socket.
      if (request.url === '/first') return;
      queued = response.socket === null;
      stream.writeTo(response);
    });
    const socket = connect(pipelined.port, '127.0.0.1');
    socket.write('GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n');
    while (!queued) await sleep(5);
    socket.destroy();
    await stream.closed;
    expect(state.closed).toBe(true);
    await pipelined.close();
  });

  it('closes the response once its socket is silent for the stall timeout, which closes the source', async () => {
    const state = { closed: false };
    const gate = deferred();
    async function* silentAfterOne() {
      try {
        yield [{ n: 1 }];
        await gate.promise;
      } finally {
        state.closed = true;
      }
    }
    const stream = new SseStream(silentAfterOne(), encoder, { heartbeatMs: 0, stallTimeoutMs: 50 });
    const response = await server.open(stream);
    response.resume();
    // 'aborted' (the server cut the response short) would reject a once(response, 'close').
    response.on('error', () => undefined);
    const started = Date.now();
    await new Promise((resolve) => response.on('close', resolve));
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    gate.resolve();
    await stream.closed;
    expect(state.closed).toBe(true);
  });
});
