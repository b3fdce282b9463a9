import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { compileGateway } from './support/compile-gateway';

const ROOT = join(__dirname, '..');

/**
 * What the built gateway keeps loaded, in a plain Node process, where modules are cached as in
 * production (Jest has its own module registry).
 */
describe('modules the built gateway does not keep', () => {
  beforeAll(() => {
    compileGateway();
  }, 120_000);

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
