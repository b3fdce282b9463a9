import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const SERVER_FILE = 'embedded-server.json';

/**
 * Postgres compiled to WebAssembly (PGlite), served over the Postgres wire protocol on loopback,
 * so the gateway runs with no database installed and still talks to it through the same Prisma
 * adapter as in production. One process owns the data folder; others (the CLI) connect to it.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    private readonly dataDir: string,
    readonly url: string,
  ) {}

  static async start(dataDir: string, options: { port?: number; maxConnections?: number } = {}): Promise<EmbeddedPostgres> {
    const directory = resolve(dataDir);
    mkdirSync(directory, { recursive: true });
    const running = EmbeddedPostgres.runningServer(directory);
    if (running) {
      throw new Error(
        `The embedded database in ${directory} is in use by process ${running.pid} (${running.url}). ` +
          'Stop that process first, or set DATABASE_URL.',
      );
    }
    const db = await PGlite.create(resolve(directory, 'pgdata'));
    const server = new PGLiteSocketServer({
      db,
      host: '127.0.0.1',
      port: options.port ?? 0,
      maxConnections: options.maxConnections ?? 32,
    });
    await server.start();
    const url = `postgresql://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`;
    writeFileSync(resolve(directory, SERVER_FILE), JSON.stringify({ pid: process.pid, url }));
    return new EmbeddedPostgres(db, server, directory, url);
  }

  /** The URL of the embedded server another live process runs on this data folder, if any. */
  static runningServer(dataDir: string): { pid: number; url: string } | undefined {
    try {
      const info = JSON.parse(readFileSync(resolve(dataDir, SERVER_FILE), 'utf8')) as { pid: number; url: string };
      process.kill(info.pid, 0);
      return info.pid === process.pid ? undefined : info;
    } catch {
      return undefined;
    }
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
    rmSync(resolve(this.dataDir, SERVER_FILE), { force: true });
  }
}
