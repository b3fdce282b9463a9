import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `npm start` runs `build-stamp.js check` and rebuilds only when it fails; here on a copy of the script in a scratch tree. */
describe('npm start: rebuild only when dist/ is stale', () => {
  const root = mkdtempSync(join(tmpdir(), 'gateway-stamp-'));
  const script = join(root, 'scripts', 'build-stamp.js');
  const run = (command: string) => spawnSync(process.execPath, [script, command]).status;
  const said = (command: string) =>
    spawnSync(process.execPath, [script, command]).stdout.toString();
  const age = (path: string, seconds: number) => {
    const when = new Date(Date.now() + seconds * 1000);
    utimesSync(path, when, when);
  };

  beforeAll(() => {
    for (const dir of ['scripts', 'src/generated', 'web', 'prisma', 'dist'])
      mkdirSync(join(root, dir), { recursive: true });
    copyFileSync(join(__dirname, '..', 'scripts', 'build-stamp.js'), script);
    writeFileSync(join(root, 'src', 'main.ts'), '');
    writeFileSync(join(root, 'src', 'generated', 'client.ts'), '');
    writeFileSync(join(root, 'prisma', 'schema.prisma'), '');
    writeFileSync(join(root, 'dist', 'main.js'), '');
    for (const path of [
      'scripts',
      'scripts/build-stamp.js',
      'src',
      'src/main.ts',
      'src/generated',
      'src/generated/client.ts',
      'web',
      'prisma',
      'prisma/schema.prisma',
    ]) {
      age(join(root, path), -60);
    }
  });

  it('needs a build before any build, and says that the first start builds', () => {
    expect(run('check')).toBe(1);
    expect(said('check')).toMatch(/^npm start: first start, building the gateway first/);
  });

  it('is current right after a build, even when Prisma regenerated its client', () => {
    expect(run('write')).toBe(0);
    expect(run('check')).toBe(0);
    expect(said('check')).toBe('');
    age(join(root, 'src', 'generated', 'client.ts'), 60);
    expect(run('check')).toBe(0);
  });

  it.each(['src/main.ts', 'prisma/schema.prisma'])('is stale once %s changes', (path) => {
    expect(run('write')).toBe(0);
    age(join(root, path), 60);
    expect(run('check')).toBe(1);
    expect(said('check')).toMatch(/^npm start: the sources changed since the last build/);
    age(join(root, path), -60);
  });
});
