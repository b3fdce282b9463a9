// Types only: PGlite's modules are required where an embedded database is opened, not when this
// file loads. A gateway on DATABASE_URL never opens one, and loaded they hold about 0.8 MB of heap
// for the life of the process (docs/performance.md, "Fifth pass").
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Logger } from '@nestjs/common';
import {
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

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
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    // Also for a folder made by an older version: the database files in it hold the key digests.
    chmodSync(directory, 0o700);
    const running = EmbeddedPostgres.runningServer(directory);
    if (running) {
      throw new Error(
        `The embedded database in ${directory} is in use by process ${running.pid} (${running.url}). ` +
          'Stop that process first, or set DATABASE_URL.',
      );
    }
    const db = await openDataFolder(resolve(directory, 'pgdata'));
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

/**
 * The build's initialised data folder (scripts/build-embedded-template.js), next to the compiled
 * code in dist/; absent when running from source, where PGlite's initdb runs instead.
 */
const TEMPLATE = join(__dirname, '..', 'embedded-pgdata');

/**
 * Opens the data folder, first copying the template into place when there is none yet. The copy
 * goes to a scratch name and is renamed, so a start killed mid-copy leaves no half folder that
 * a later start would take for a database.
 */
async function openDataFolder(pgdata: string): Promise<PGlite> {
  if (!existsSync(pgdata) && existsSync(join(TEMPLATE, 'PG_VERSION'))) {
    const scratch = `${pgdata}.tmp-${process.pid}`;
    rmSync(scratch, { recursive: true, force: true });
    await copyFolder(TEMPLATE, scratch);
    chmodSync(scratch, 0o700);
    renameSync(scratch, pgdata);
    new Logger('EmbeddedPostgres').log(`created ${pgdata} from the build's initialised template`);
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  return PGlite.create(pgdata, {
    startParams: [...PGlite.defaultStartParams, ...settingArguments()],
  });
}

/**
 * Postgres settings for a database that holds a few keys and batched usage records for one
 * process. Given on the command line at every start, so they apply to data folders made by older
 * versions too (postgresql.conf, the template's included, still says 128MB) and need nothing baked
 * into the template.
 *
 * shared_buffers: PGlite's default of 128 MB is allocated and touched inside the WebAssembly
 * memory at start, and was most of the embedded mode's idle RSS; 16 MB (2,048 pages, wal_buffers
 * follows at 512 kB) holds the gateway's working set, and the data folder's files stay in the
 * operating system's cache behind it (docs/performance.md, "Embedded defaults").
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
};

function settingArguments(): string[] {
  return Object.entries(EMBEDDED_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}

/**
 * About 1,000 small files: copied all at once on libuv's thread pool, so the event loop goes on
 * with the rest of the start meanwhile (fs.cpSync held it for about 200 ms, fs.promises.cp was
 * slower still). COPYFILE_FICLONE shares the blocks where the file system can (Btrfs, XFS) and
 * copies them elsewhere.
 */
async function copyFolder(from: string, to: string): Promise<void> {
  await mkdir(to, { mode: 0o700 });
  const entries = await readdir(from, { withFileTypes: true });
  await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? copyFolder(join(from, entry.name), join(to, entry.name))
        : copyFile(join(from, entry.name), join(to, entry.name), constants.COPYFILE_FICLONE),
    ),
  );
}
