import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Node HTTP server of a unit test's own on loopback, answering with `handler`. */
export interface LoopbackServer {
  server: Server;
  port: number;
  /** Drops the connections still open, then stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a real HTTP server on 127.0.0.1 and an ephemeral port, for unit tests of code that
 * writes to a real ServerResponse over a real socket (no mocked response).
 */
export async function listen(handler: RequestListener): Promise<LoopbackServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The whole body of a response, as text, once it has ended. */
export async function bodyText(response: IncomingMessage): Promise<string> {
  response.setEncoding('utf8');
  let text = '';
  for await (const piece of response) text += piece as string;
  return text;
}
