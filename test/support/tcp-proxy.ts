import { createConnection, createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP forwarder in front of a real server (the machine's Redis), so a test can take "Redis"
 * away and bring it back, or make it hang, without touching the real one.
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
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  /** Keeps every connection open but lets nothing through either way: a Redis that hangs. */
  hang(): void {
    this.blackhole = true;
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
