// Types only: PGlite's modules are required where an embedded database is opened, not when this
// file loads. A gateway on DATABASE_URL never opens one, and loaded they would stay in its heap
// for the life of the process.
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Logger } from '@nestjs/common';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pgdataOf, prepareDataFolder } from './embedded-data-folder';

const SERVER_FILE = 'embedded-server.json';
/** node-postgres finds a server in directory D at D/.s.PGSQL.<port>, as libpq does. */
const SOCKET_NAME = '.s.PGSQL.5432';
/** sun_path holds 108 bytes on Linux (104 on macOS), terminating NUL included. */
const MAX_SOCKET_PATH = 100;

/**
 * Postgres compiled to WebAssembly (PGlite), served over the Postgres wire protocol, so the
 * gateway runs with no database installed and still talks to it through the same Prisma adapter
 * as in production. One process owns the data folder; others (the CLI) connect to it.
 *
 * PGlite checks no password, so the server listens on a Unix socket in a folder only the owner
 * may enter (0700), never on a TCP port that any local user could reach: file permissions are
 * the access control. The data folder itself is kept at 0700 too.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    private readonly dataDir: string,
    private readonly socketDir: string,
    readonly url: string,
  ) {}

  static async start(
    dataDir: string,
    options: { maxConnections?: number } = {},
  ): Promise<EmbeddedPostgres> {
    const directory = resolve(dataDir);
    const running = EmbeddedPostgres.runningServer(directory);
    if (running) {
      throw new Error(
        `The embedded database in ${directory} is in use by process ${running.pid} (${running.url}). ` +
          'Stop that process first, or set DATABASE_URL.',
      );
    }
    const db = await openDataFolder(directory);
    const socketDir = privateSocketDir(directory);
    const { PGLiteSocketServer } =
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('@electric-sql/pglite-socket') as typeof import('@electric-sql/pglite-socket');
    const server = new PGLiteSocketServer({
      db,
      path: join(socketDir, SOCKET_NAME),
      maxConnections: options.maxConnections ?? 32,
    });
    try {
      await server.start();
    } catch (error) {
      await db.close();
      throw error;
    }
    const url = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&sslmode=disable`;
    writeFileSync(resolve(directory, SERVER_FILE), JSON.stringify({ pid: process.pid, url }), {
      mode: 0o600,
    });
    return new EmbeddedPostgres(db, server, directory, socketDir, url);
  }

  /** The URL of the embedded server another live process runs on this data folder, if any. */
  static runningServer(dataDir: string): { pid: number; url: string } | undefined {
    try {
      const info = JSON.parse(readFileSync(resolve(dataDir, SERVER_FILE), 'utf8')) as {
        pid: number;
        url: string;
      };
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
    // Closing the server removed the socket itself; a temp folder made for it goes too.
    if (!this.socketDir.startsWith(this.dataDir))
      rmSync(this.socketDir, { recursive: true, force: true });
  }
}

/**
 * `<data folder>/socket`, mode 0700 even if it existed with another; a fresh 0700 folder under the
 * system's temp folder when that path is too long for a socket. A socket left by a crashed start
 * is removed (the caller made sure no live process owns the data folder).
 */
function privateSocketDir(dataDir: string): string {
  const preferred = join(dataDir, 'socket');
  if (join(preferred, SOCKET_NAME).length > MAX_SOCKET_PATH)
    return mkdtempSync(join(tmpdir(), 'gateway-pg-'));
  mkdirSync(preferred, { recursive: true, mode: 0o700 });
  chmodSync(preferred, 0o700);
  rmSync(join(preferred, SOCKET_NAME), { force: true });
  return preferred;
}

/** Opens the data folder, copying the build's template into it first when it has no database. */
async function openDataFolder(directory: string): Promise<PGlite> {
  if (await prepareDataFolder(directory)) {
    new Logger('EmbeddedPostgres').log(
      `created ${pgdataOf(directory)} from the build's initialised template`,
    );
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  return PGlite.create(pgdataOf(directory), {
    startParams: [...PGlite.defaultStartParams, ...settingArguments()],
  });
}

/**
 * Postgres settings for a database that holds a few keys and batched usage records for one
 * process. Given on the command line at every start, so they apply to data folders made by older
 * versions too (postgresql.conf, the template's included, still says 128MB) and need nothing baked
 * into the template. Postgres allocates its shared memory inside PGlite's WebAssembly memory and
 * touches all of it at start, and a WebAssembly memory never gives pages back: every megabyte
 * here is a megabyte of the gateway's RSS for its whole life.
 *
 * shared_buffers: 2 MB (256 pages; wal_buffers follows at 64 kB) holds what a batched usage
 * insert touches (the right edges of the usage tables and their indexes); the data folder's files
 * stay in the operating system's cache behind it. PGlite's default is 128 MB.
 *
 * max_connections: PGlite runs one session whatever the socket server accepts, but Postgres sizes
 * its per-backend shared arrays (lock table, snapshots, statistics) by this number; 4 instead of
 * 100 takes about 4 MB off that memory and still leaves a lock table of over 1,000 entries.
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '2MB',
  max_connections: '4',
};

function settingArguments(): string[] {
  return Object.entries(EMBEDDED_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}
