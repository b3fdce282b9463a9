import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { ClientDisconnectedError } from '../errors/client-disconnected.error';
import { clientConnection, type ClientConnection } from './client-connection';
import { bodyText, listen, type LoopbackServer } from './loopback-server.fixture';

type Exchange = { request: IncomingMessage; response: ServerResponse };

describe('clientConnection', () => {
  let server: LoopbackServer;
  let exchanges: Array<(exchange: Exchange) => void>;

  beforeAll(async () => {
    exchanges = [];
    server = await listen((req, res) => exchanges.shift()!({ request: req, response: res }));
  });
  afterAll(() => server.close());

  /** Sends a request; resolves with the server's side of it. `abort` ends the client's socket. */
  function exchange(): Promise<Exchange & { abort: () => void; answered: Promise<string> }> {
    return new Promise((resolve) => {
      const client = request({ port: server.port, host: '127.0.0.1', method: 'POST', path: '/' });
      const answered = new Promise<string>((done, fail) => {
        client.on('response', (answer) => bodyText(answer).then(done, fail));
        client.on('error', fail);
      });
      answered.catch(() => undefined);
      exchanges.push((server) => resolve({ ...server, abort: () => client.destroy(), answered }));
      client.end('{}');
    });
  }

  const closed = (response: ServerResponse) =>
    new Promise<void>((resolve) => (response.closed ? resolve() : response.once('close', resolve)));

  it('tells its listeners, once, that the client left mid-response', async () => {
    const { response, abort } = await exchange();
    const connection = clientConnection(response);
    const heard: ClientDisconnectedError[] = [];
    connection.onLost((reason) => heard.push(reason));
    expect(connection.lostReason).toBeUndefined();
    abort();
    await closed(response);
    expect(connection.lostReason).toBeInstanceOf(ClientDisconnectedError);
    expect(heard).toEqual([connection.lostReason]);
  });

  it('is not lost when the response completes, and leaves no listener behind', async () => {
    const { response, answered } = await exchange();
    const connection = clientConnection(response);
    const before = response.listenerCount('close');
    const heard: unknown[] = [];
    connection.onLost((reason) => heard.push(reason));
    expect(response.listenerCount('close')).toBe(before + 1);
    response.end('done');
    expect(await answered).toBe('done');
    await closed(response);
    expect(connection.lostReason).toBeUndefined();
    expect(heard).toEqual([]);
    expect(response.listenerCount('close')).toBe(0);
  });

  it('stops telling a listener once it asked to stop', async () => {
    const { response, abort } = await exchange();
    const connection = clientConnection(response);
    const heard: unknown[] = [];
    const stop = connection.onLost((reason) => heard.push(reason));
    stop();
    abort();
    await closed(response);
    expect(connection.lostReason).toBeInstanceOf(ClientDisconnectedError);
    expect(heard).toEqual([]);
  });

  it('is lost from the start when the client left before it was made', async () => {
    const { request: incoming, response, abort } = await exchange();
    abort();
    await new Promise<void>((resolve) =>
      incoming.socket.destroyed ? resolve() : incoming.socket.once('close', () => resolve()),
    );
    const connection: ClientConnection = clientConnection(response);
    expect(connection.lostReason).toBeInstanceOf(ClientDisconnectedError);
    // As an abort listener added after the abort: never called, the caller checks lostReason.
    const heard: unknown[] = [];
    connection.onLost((reason) => heard.push(reason));
    await closed(response);
    expect(heard).toEqual([]);
  });
});
