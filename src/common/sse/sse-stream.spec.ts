import { EventEmitter, once } from 'node:events';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';
import { GatewayException } from '../errors/gateway.exception';
import { UpstreamError } from '../errors/upstream.error';
import { bodyText, listen, type LoopbackServer } from '../http/loopback-server.fixture';
import { DONE_FRAME, HEARTBEAT_FRAME } from './sse-frames';
import { SseStream, type SseStreamOptions } from './sse-stream';

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

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const OPTIONS: SseStreamOptions = { heartbeatMs: 0, stallTimeoutMs: 0 };

/** What has arrived of a response's body so far, as text. */
function received(response: IncomingMessage): { readonly text: string } {
  const body = { text: '' };
  response.setEncoding('utf8');
  response.on('data', (piece: string) => (body.text += piece));
  return body;
}

/**
 * A real HTTP server whose every response is the stream `next()` hands out, and a client that
 * opens one request to it: the stream writes to a real ServerResponse over a real socket.
 */
class StreamServer {
  private constructor(
    private readonly loopback: LoopbackServer,
    private readonly streams: SseStream[],
  ) {}

  static async start(): Promise<StreamServer> {
    const streams: SseStream[] = [];
    const loopback = await listen((_request, response) => streams.shift()!.writeTo(response));
    return new StreamServer(loopback, streams);
  }

  /** Opens a request answered by `stream`; resolves with the response once its head arrives. */
  async open(stream: SseStream): Promise<IncomingMessage> {
    this.streams.push(stream);
    const { port } = this.loopback;
    const sent = request({ host: '127.0.0.1', port, method: 'POST', agent: false });
    // A response the server cuts short fails its request too; the tests look at the response.
    sent.on('error', () => undefined);
    sent.end();
    const [response] = (await once(sent, 'response')) as [IncomingMessage];
    return response;
  }

  /** The whole body of a stream's response, as text. */
  async body(stream: SseStream): Promise<string> {
    return bodyText(await this.open(stream));
  }

  stop(): Promise<void> {
    return this.loopback.close();
  }
}

describe('SseStream', () => {
  let server: StreamServer;

  beforeAll(async () => (server = await StreamServer.start()));
  afterAll(() => server.stop());

  it('writes one `data: <json>` event per chunk with event-stream headers, and ends with data: [DONE]', async () => {
    const { iterator, state } = source([{ a: 1 }, { b: 'é👋' }]);
    const stream = new SseStream(iterator, OPTIONS);
    const response = await server.open(stream);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['x-accel-buffering']).toBe('no');
    const strict = new TextDecoder('utf-8', { fatal: true });
    let body = '';
    for await (const piece of response) body += strict.decode(piece as Buffer, { stream: true });
    expect(body).toBe('data: {"a":1}\n\ndata: {"b":"é👋"}\n\ndata: [DONE]\n\n');
    expect(DONE_FRAME).toBe('data: [DONE]\n\n');
    await stream.closed;
    expect(state.closed).toBe(true);
  });

  it('keeps a chunk on one line even when its strings hold newlines', async () => {
    const { iterator } = source([{ text: 'line one\n\nline two' }]);
    expect(await server.body(new SseStream(iterator, OPTIONS))).toBe(
      'data: {"text":"line one\\n\\nline two"}\n\n' + DONE_FRAME,
    );
  });

  it('writes a batch as its frames in one write, and skips an empty batch', async () => {
    async function* batches() {
      yield [{ n: 1 }, { n: 2 }];
      yield [];
      yield [{ n: 3 }];
    }
    const writes: string[] = [];
    const stream = new SseStream(batches(), OPTIONS);
    const writeTo = stream.writeTo.bind(stream);
    jest.spyOn(stream, 'writeTo').mockImplementation((response) => {
      const write = response.write.bind(response);
      response.write = ((chunk: string) => (writes.push(chunk), write(chunk))) as typeof write;
      writeTo(response);
    });
    expect(await server.body(stream)).toBe(
      'data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\n' + DONE_FRAME,
    );
    expect(writes).toEqual(['data: {"n":1}\n\ndata: {"n":2}\n\n', 'data: {"n":3}\n\n']);
  });

  it('writes comment heartbeats while the source is silent, then carries on', async () => {
    const gate = deferred();
    async function* slow() {
      yield [{ n: 1 }];
      await gate.promise;
      yield [{ n: 2 }];
    }
    const response = await server.open(new SseStream(slow(), { ...OPTIONS, heartbeatMs: 5 }));
    const body = received(response);
    // The source is blocked on the gate, so only heartbeats can come after the first chunk.
    while (!body.text.includes(HEARTBEAT_FRAME + HEARTBEAT_FRAME)) await sleep(5);
    gate.resolve();
    await once(response, 'end');
    expect(body.text.startsWith('data: {"n":1}\n\n' + HEARTBEAT_FRAME + HEARTBEAT_FRAME)).toBe(
      true,
    );
    expect(body.text.endsWith('data: {"n":2}\n\n' + DONE_FRAME)).toBe(true);
    expect(body.text.split('\n\n').filter((frame) => frame.startsWith('data:'))).toHaveLength(3);
    expect(HEARTBEAT_FRAME).toBe(': keep-alive\n\n');
  });

  it('does not skip or repeat a chunk that arrives after a heartbeat', async () => {
    const gate = deferred();
    async function* slow() {
      await gate.promise;
      yield [{ n: 1 }];
    }
    const response = await server.open(new SseStream(slow(), { ...OPTIONS, heartbeatMs: 5 }));
    const body = received(response);
    while (!body.text.includes(HEARTBEAT_FRAME)) await sleep(5);
    gate.resolve();
    await once(response, 'end');
    expect(body.text.replaceAll(HEARTBEAT_FRAME, '')).toBe('data: {"n":1}\n\n' + DONE_FRAME);
  });

  it('pulls the source only as fast as the client reads, and sends no heartbeat meanwhile', async () => {
    let pulls = 0;
    const frame = { text: 'x'.repeat(64 * 1024) };
    const endless: AsyncIterator<unknown[]> = {
      next: () => {
        pulls++;
        return Promise.resolve({ done: false, value: [frame] });
      },
    };
    const stream = new SseStream(endless, { ...OPTIONS, heartbeatMs: 2 });
    const response = await server.open(stream);
    response.pause();
    // Socket buffers fill up, then the pulls stop.
    let before = -1;
    while (pulls !== before) {
      before = pulls;
      await sleep(50);
    }
    const stalledAt = pulls;
    await sleep(30);
    expect(pulls).toBe(stalledAt);

    const body = received(response);
    response.resume();
    while (pulls < stalledAt + 50) await sleep(5);
    response.destroy();
    await stream.closed;
    // Every 64 KiB frame stands alone: no heartbeat was written into a full buffer.
    expect(body.text).not.toContain(HEARTBEAT_FRAME);
  });

  it('resumes heartbeats after a heartbeat filled the buffer and it drained', async () => {
    // A stand-in response: a real socket cannot be made to refuse exactly one heartbeat.
    const response = Object.assign(new EventEmitter(), {
      destroyed: false,
      socket: null,
      req: { socket: new EventEmitter() },
      writableNeedDrain: false,
      writes: [] as string[],
      setHeader() {},
      cork() {},
      uncork() {},
      end() {},
      write(frames: string) {
        this.writes.push(frames);
        // The first heartbeat (the second write) fills the buffer.
        if (this.writes.length === 2) this.writableNeedDrain = true;
        return !this.writableNeedDrain;
      },
    });
    const gate = deferred();
    async function* slow() {
      yield [{ n: 1 }];
      await gate.promise;
    }
    const stream = new SseStream(slow(), { heartbeatMs: 5, stallTimeoutMs: 0 });
    stream.writeTo(response as unknown as ServerResponse);
    while (response.writes.length < 2) await sleep(5);
    await sleep(30); // beats come and find the buffer full
    expect(response.writes).toHaveLength(2);
    response.writableNeedDrain = false;
    response.emit('drain');
    while (response.writes.length < 4) await sleep(5);
    expect(response.writes.slice(1)).toEqual([HEARTBEAT_FRAME, HEARTBEAT_FRAME, HEARTBEAT_FRAME]);
    gate.resolve();
    await stream.closed;
  });

  it("leaves the server's keep-alive timeout on the connection after a finished stream", async () => {
    const { iterator } = source([{ n: 1 }]);
    const stream = new SseStream(iterator, { heartbeatMs: 0, stallTimeoutMs: 60_000 });
    const keepAlive = await listen((_request, response) => stream.writeTo(response));
    keepAlive.server.keepAliveTimeout = 100;
    const socket = connect(keepAlive.port, '127.0.0.1');
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
    let received = '';
    socket.on('data', (piece) => (received += piece.toString('utf8')));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    while (!received.includes(DONE_FRAME)) await sleep(5);
    const idleSince = Date.now();
    await closed;
    // Node closes an idle keep-alive connection about a second after keepAliveTimeout; with the
    // socket's timeout cleared it would stay open until the client left.
    expect(Date.now() - idleSince).toBeLessThan(3_000);
    await keepAlive.close();
  });

  it('does not let its stall timeout cut off a request pipelined behind it', async () => {
    const { iterator } = source([{ n: 1 }]);
    const stream = new SseStream(iterator, { heartbeatMs: 0, stallTimeoutMs: 50 });
    const pipelined = await listen((request, response) => {
      if (request.url === '/stream') return stream.writeTo(response);
      // Longer than the stream's stall timeout, with the connection silent meanwhile.
      setTimeout(() => response.end('slow answer'), 300);
    });
    const socket = connect(pipelined.port, '127.0.0.1');
    socket.write('GET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    let received = '';
    socket.on('data', (piece) => (received += piece.toString('utf8')));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await Promise.race([
      closed,
      (async () => {
        while (!received.includes('slow answer')) await sleep(5);
      })(),
    ]);
    expect(received).toContain(DONE_FRAME);
    expect(received).toContain('slow answer');
    socket.destroy();
    await pipelined.close();
  });

  it('turns a failure after the first chunk into one error event, without [DONE]', async () => {
    const onError = jest.fn();
    const failure = new UpstreamError('unavailable', 'socket hang up, raw body: secret');
    const { iterator } = source([{ n: 1 }], failure);
    expect(await server.body(new SseStream(iterator, { ...OPTIONS, onError }))).toBe(
      'data: {"n":1}\n\n' +
        'data: {"error":{"message":"The model provider failed to answer.","type":"upstream_error","param":null,"code":"upstream_error","source":"upstream"}}\n\n',
    );
    expect(onError).toHaveBeenCalledWith(failure);
  });

  it('sends a GatewayException as its own envelope and hides unknown errors behind internal_error', async () => {
    const known = source([], new GatewayException('upstream_timeout'));
    expect(
      JSON.parse((await server.body(new SseStream(known.iterator, OPTIONS))).slice(6)),
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
    const frame = await server.body(new SseStream(unknown.iterator, OPTIONS));
    expect(JSON.parse(frame.slice(6)).error).toMatchObject({
      code: 'internal_error',
      source: 'gateway',
    });
    expect(frame).not.toContain('hunter2');
  });

  it('ends silently when the source stops because the client disconnected', async () => {
    const onError = jest.fn();
    const { iterator } = source([{ n: 1 }], new ClientDisconnectedError());
    expect(await server.body(new SseStream(iterator, { ...OPTIONS, onError }))).toBe(
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
    const stream = new SseStream(generate(), { ...OPTIONS, heartbeatMs: 5 });
    const response = await server.open(stream);
    response.destroy();
    // The pull in flight waits on the gate; return() waits for it, then runs the finally.
    setTimeout(() => gate.resolve(), 20);
    await stream.closed;
    expect(state.recorded).toBe(true);
  });

  it('closes a source it never pulled when the client left before the response was written', async () => {
    const { iterator, state } = source([{ n: 1 }]);
    // Started, as the completions service hands its streams out.
    await iterator.next();
    const stream = new SseStream(iterator, OPTIONS);
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
    const stream = new SseStream(iterator, OPTIONS);
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
    const stream = new SseStream(silentAfterOne(), { heartbeatMs: 0, stallTimeoutMs: 50 });
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
