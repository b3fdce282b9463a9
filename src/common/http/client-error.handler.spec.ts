import { connect, type Socket } from 'node:net';
import { installClientErrorHandlers } from './client-error.handler';
import { listen, type LoopbackServer } from './loopback-server.fixture';

/** A raw connection: what it has received so far, and a promise of everything once it closes. */
function open(port: number): { socket: Socket; received: () => string; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  return { socket, received: () => text, closed };
}

async function until(done: () => boolean): Promise<void> {
  for (const end = Date.now() + 5_000; !done();) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('installClientErrorHandlers', () => {
  let server: LoopbackServer;

  beforeAll(async () => {
    server = await listen((request, response) => {
      if (request.url === '/held') {
        // Headers out, body never finished: a stream in progress.
        response.writeHead(200, { 'Content-Type': 'text/event-stream' });
        response.write('data: 1\n\n');
        return;
      }
      response.end('ok');
    });
    installClientErrorHandlers(server.server);
  });

  afterAll(() => server.close());

  it('answers a malformed request in the envelope after a finished answer on the same connection', async () => {
    const connection = open(server.port);
    connection.socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => connection.received().endsWith('ok'));
    connection.socket.write('HELLO THERE\r\n\r\n');
    const text = await connection.closed;
    const second = text.slice(text.indexOf('ok') + 2);
    expect(second).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(second.split('\r\n\r\n')[1])).toMatchObject({
      error: { code: 'malformed_request' },
    });
  });

  it('closes the connection, writing nothing, while a response on it is under way', async () => {
    const connection = open(server.port);
    connection.socket.write('GET /held HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => connection.received().includes('data: 1'));
    const before = connection.received();
    connection.socket.write('HELLO THERE\r\n\r\n');
    expect(await connection.closed).toBe(before);
  });
});
