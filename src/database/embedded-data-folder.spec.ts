import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgdataOf, prepareDataFolder } from './embedded-data-folder';

/** A stand-in for dist/embedded-pgdata: PG_VERSION and nested folders of files, as initdb makes. */
function template(): string {
  const root = mkdtempSync(join(tmpdir(), 'gateway-template-'));
  // As the build leaves it: readable by all (scripts/build-embedded-template.js).
  chmodSync(root, 0o755);
  writeFileSync(join(root, 'PG_VERSION'), '17\n');
  for (const folder of ['base/1', 'base/5', 'global', 'pg_wal']) {
    mkdirSync(join(root, folder), { recursive: true });
    for (let file = 0; file < 20; file++)
      writeFileSync(join(root, folder, String(1000 + file)), `${folder}/${file}`);
  }
  return root;
}

const newDataDir = () => join(mkdtempSync(join(tmpdir(), 'gateway-data-')), 'data');

describe('prepareDataFolder', () => {
  it('copies the template into <data folder>/pgdata on a worker thread, folders private', async () => {
    const from = template();
    const dataDir = newDataDir();

    await expect(prepareDataFolder(dataDir, from)).resolves.toBe(true);

    const pgdata = pgdataOf(dataDir);
    expect(readFileSync(join(pgdata, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(readdirSync(join(pgdata, 'base', '5'))).toHaveLength(20);
    expect(readFileSync(join(pgdata, 'pg_wal', '1019'), 'utf8')).toBe('pg_wal/19');
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(pgdata).mode & 0o777).toBe(0o700);
    // No scratch copy is left beside it.
    expect(readdirSync(dataDir)).toEqual(['pgdata']);
  });

  it('prepares a folder once per process: main.ts starts it, the database module joins it', async () => {
    const dataDir = newDataDir();
    const first = prepareDataFolder(dataDir, template());
    expect(prepareDataFolder(join(dataDir, '.'), template())).toBe(first);
    await expect(first).resolves.toBe(true);
  });

  it('leaves a folder that already holds a database as it is', async () => {
    const dataDir = newDataDir();
    mkdirSync(pgdataOf(dataDir), { recursive: true });
    writeFileSync(join(pgdataOf(dataDir), 'PG_VERSION'), 'mine');

    await expect(prepareDataFolder(dataDir, template())).resolves.toBe(false);
    expect(readFileSync(join(pgdataOf(dataDir), 'PG_VERSION'), 'utf8')).toBe('mine');
  });

  it('copies nothing without a template (running from source: PGlite runs initdb)', async () => {
    const dataDir = newDataDir();
    await expect(prepareDataFolder(dataDir, join(tmpdir(), 'no-such-template'))).resolves.toBe(
      false,
    );
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('rejects with the copy error and leaves no half folder', async () => {
    const from = template();
    // cpSync refuses a named pipe (ERR_FS_CP_FIFO_PIPE) part-way through, whoever runs it.
    execFileSync('mkfifo', [join(from, 'base', '5', 'pipe')]);
    const dataDir = newDataDir();

    await expect(prepareDataFolder(dataDir, from)).rejects.toThrow(/FIFO/);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
