import { createConnection, createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP forwarder in front of a real server (the machine's Redis or Postgres), so a test can take
 * it away and bring it back, or make it hang like a network that drops packets, without touching
 * the real one.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private blackhole = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Listens (again) on the same port as before, or on a free one the first time. */
  async start(): Promise<void> {
    const server = createServer((client) => this.forward(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Refuses new connections and cuts the open ones, as a Redis that went down would. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
    this.server = null;
  }

  /**
   * Keeps every connection open, and accepts new ones, but lets no byte through either way and
   * sends no RST: a server behind a network that drops packets. Bytes sent meanwhile are lost.
   */
  hang(): void {
    this.blackhole = true;
  }

  /** Forwards again after hang(). Connections that lost bytes stay out of step, as they would. */
  restore(): void {
    this.blackhole = false;
  }

  private forward(client: Socket): void {
    const upstream = createConnection(this.targetPort, this.targetHost);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (data) => this.blackhole || upstream.write(data));
    upstream.on('data', (data) => this.blackhole || client.write(data));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}

/** A proxy in front of the machine's Postgres, and the suite's DATABASE_URL pointed through it. */
export async function proxiedPostgres(): Promise<{ proxy: TcpProxy; databaseUrl: string }> {
  const proxy = new TcpProxy('127.0.0.1', 5432);
  await proxy.start();
  const url = new URL(process.env.DATABASE_URL!);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { proxy, databaseUrl: url.toString() };
}
