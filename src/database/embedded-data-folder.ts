import { chmodSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The build's initialised data folder (scripts/build-embedded-template.js), next to the compiled
 * code in dist/; absent when running from source, where PGlite's initdb runs instead.
 */
const TEMPLATE = join(__dirname, '..', 'embedded-pgdata');

/**
 * Copies a folder on a thread of its own and exits. Plain JavaScript evaluated by the worker, so
 * it runs the same from dist/ and from source. cpSync is the quickest of Node's copies for about
 * 1,000 small files; on a worker it holds no event loop the gateway needs. COPYFILE_FICLONE
 * shares the blocks where the file system can (Btrfs, XFS) and copies them elsewhere.
 */
const COPY_WORKER = `
const { cpSync, constants } = require('node:fs');
const { workerData } = require('node:worker_threads');
cpSync(workerData.from, workerData.to, { recursive: true, mode: constants.COPYFILE_FICLONE });
`;

/** One preparation per data folder and process: main.ts starts it, the database module joins it. */
const preparing = new Map<string, Promise<boolean>>();

/**
 * Makes the data folder (mode 0700: its database files hold the key digests) and, when it has no
 * database yet, copies the build's template into `<dataDir>/pgdata`. Resolves with whether it
 * copied. main.ts calls it before it loads the application, so the copy (about 1,000 files)
 * overlaps the loading of the application's modules instead of following it; a later call for
 * the same folder gets the same promise.
 *
 * The copy goes to a scratch name and is renamed, so a start killed mid-copy leaves no half
 * folder that a later start would take for a database.
 */
export function prepareDataFolder(dataDir: string, template = TEMPLATE): Promise<boolean> {
  const directory = resolve(dataDir);
  let prepared = preparing.get(directory);
  if (!prepared) {
    prepared = copyTemplateIfEmpty(directory, template);
    preparing.set(directory, prepared);
  }
  return prepared;
}

/** Where PGlite keeps the database inside a data folder. */
export function pgdataOf(dataDir: string): string {
  return resolve(dataDir, 'pgdata');
}

async function copyTemplateIfEmpty(directory: string, template: string): Promise<boolean> {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  // Also for a folder made by an older version.
  chmodSync(directory, 0o700);
  const pgdata = pgdataOf(directory);
  if (existsSync(pgdata) || !existsSync(join(template, 'PG_VERSION'))) return false;
  const scratch = `${pgdata}.tmp-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  try {
    await copyOnWorker(template, scratch);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  chmodSync(scratch, 0o700);
  renameSync(scratch, pgdata);
  return true;
}

function copyOnWorker(from: string, to: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const worker = new Worker(COPY_WORKER, { eval: true, workerData: { from, to } });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      code === 0
        ? resolvePromise()
        : reject(new Error(`copying the database template exited with code ${code}`)),
    );
  });
}
