import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileGateway } from './support/compile-gateway';

const ROOT = join(__dirname, '..');
/** The size of the base64 text of Prisma's query compiler (2.3 MB); nothing else comes near. */
const COMPILER_TEXT = 2_000_000;

/** Sizes of the strings of at least `min` bytes alive in a heap snapshot. */
function largeStrings(snapshotFile: string, min: number): number[] {
  const snapshot = JSON.parse(readFileSync(snapshotFile, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
  };
  const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
  const width = fields.length;
  const type = fields.indexOf('type');
  const size = fields.indexOf('self_size');
  const sizes: number[] = [];
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    if (types[0][snapshot.nodes[i + type]] === 'string' && snapshot.nodes[i + size] >= min)
      sizes.push(snapshot.nodes[i + size]);
  }
  return sizes;
}

/**
 * What the built gateway keeps loaded, in a plain Node process, where modules are cached as in
 * production (Jest has its own module registry). docs/performance.md, "Fifth pass".
 */
describe('modules the built gateway does not keep', () => {
  beforeAll(() => {
    compileGateway();
  }, 120_000);

  // scripts/prisma-generate.js rewrites how the generated client loads its query compiler.
  it("Prisma's query compiler text: neither cached nor alive after the first query", () => {
    const snapshotFile = join(mkdtempSync(join(tmpdir(), 'prisma-compiler-')), 'heap.heapsnapshot');
    const script = `
      const { writeHeapSnapshot } = require('node:v8');
      const { PrismaPg } = require('@prisma/adapter-pg');
      const { PrismaClient } = require('./dist/generated/prisma/client');
      (async () => {
        const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL }) });
        const keys = await prisma.virtualKey.count();
        const cached = Object.keys(require.cache).filter((path) => path.includes('wasm-base64'));
        writeHeapSnapshot(process.env.SNAPSHOT);
        await prisma.$disconnect();
        process.stdout.write(JSON.stringify({ keys, cached }));
      })();
    `;
    const output = execFileSync(process.execPath, ['-e', script], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        TMPDIR: process.env.TMPDIR,
        DATABASE_URL: process.env.DATABASE_URL,
        SNAPSHOT: snapshotFile,
      },
    }).toString();

    const { keys, cached } = JSON.parse(output) as { keys: number; cached: string[] };
    expect(typeof keys).toBe('number');
    expect(cached).toEqual([]);
    // A heap snapshot collects garbage first, so what it holds is alive.
    expect(largeStrings(snapshotFile, COMPILER_TEXT)).toEqual([]);
  }, 60_000);

  it('PGlite: not loaded by a gateway on DATABASE_URL', () => {
    const script = `
      require('./dist/app.module');
      const loaded = Object.keys(require.cache).filter((path) => path.includes('@electric-sql'));
      const embedded = require.resolve('./dist/database/embedded-postgres');
      process.stdout.write(JSON.stringify({ loaded, embedded: embedded in require.cache }));
    `;
    const output = execFileSync(process.execPath, ['-e', script], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        TMPDIR: process.env.TMPDIR,
        DATABASE_URL: process.env.DATABASE_URL,
      },
    }).toString();
    // The module that opens an embedded database is loaded; PGlite only when it opens one.
    expect(JSON.parse(output)).toEqual({ loaded: [], embedded: true });
  });

  it('yaml: not loaded without GATEWAY_CONFIG', () => {
    const script = `
      require('./dist/app.module');
      const loaded = Object.keys(require.cache).filter((path) => path.includes('/node_modules/yaml/'));
      process.stdout.write(JSON.stringify(loaded));
    `;
    const output = execFileSync(process.execPath, ['-e', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR },
    }).toString();
    expect(JSON.parse(output)).toEqual([]);
  });
});
