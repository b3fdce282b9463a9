import { EventEmitter, once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { listen } from '../http/loopback-server.fixture';
import { SseStream } from './sse-stream';
import {
  deferred,
  DONE_FRAME,
  encoder,
  HEARTBEAT_FRAME,
  OPTIONS,
  received,
  sleep,
  source,
  StreamServer,
} from './sse-stream.fixture';

describe('SseStream', () => {
  let server: StreamServer;

  beforeAll(async () => (server = await StreamServer.start()));
  afterAll(() => server.stop());

  it("writes the encoder's frames with event-stream headers, and ends with its closing frames", async () => {
    const { iterator, state } = source([{ a: 1 }, { b: 'é👋' }]);
    const stream = new SseStream(iterator, encoder, OPTIONS);
    const response = await server.open(stream);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['x-accel-buffering']).toBe('no');
    const strict = new TextDecoder('utf-8', { fatal: true });
    let body = '';
    for await (const piece of response) body += strict.decode(piece as Buffer, { stream: true });
    expect(body).toBe('data: {"a":1}\n\ndata: {"b":"é👋"}\n\ndata: [DONE]\n\n');
    await stream.closed;
    expect(state.closed).toBe(true);
  });

  it('keeps a chunk on one line even when its strings hold newlines', async () => {
    const { iterator } = source([{ text: 'line one\n\nline two' }]);
    expect(await server.body(new SseStream(iterator, encoder, OPTIONS))).toBe(
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
    const stream = new SseStream(batches(), encoder, OPTIONS);
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
    const response = await server.open(
      new SseStream(slow(), encoder, { ...OPTIONS, heartbeatMs: 5 }),
    );
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
    const response = await server.open(
      new SseStream(slow(), encoder, { ...OPTIONS, heartbeatMs: 5 }),
    );
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
    const stream = new SseStream(endless, encoder, { ...OPTIONS, heartbeatMs: 2 });
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
    const stream = new SseStream(slow(), encoder, { heartbeatMs: 5, stallTimeoutMs: 0 });
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
    const stream = new SseStream(iterator, encoder, { heartbeatMs: 0, stallTimeoutMs: 60_000 });
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
    const stream = new SseStream(iterator, encoder, { heartbeatMs: 0, stallTimeoutMs: 50 });
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
});
