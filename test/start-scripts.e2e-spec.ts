import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The benchmarks' reading of start:prod, so that they run the gateway as it is deployed.
import { startRuntime } from './bench/start-runtime';

const ROOT = join(__dirname, '..');
const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

/**
 * Wherever the gateway is started for real (`npm start`, `npm run start:prod`, the image), glibc's
 * malloc is held to two arenas and V8 runs with the gateway's flags (docs/performance.md says
 * what each saves): Prisma's WebAssembly on baseline code only, the old generation grown at most
 * to twice what survived, the young generation held to 16 MiB. Here the package's own script text
 * runs under sh, as npm runs it, in a scratch tree whose dist/main.js prints what it was started
 * with; a Node that no longer takes one of the flags fails it.
 */
describe('start scripts: the runtime the gateway is deployed with', () => {
  const root = mkdtempSync(join(tmpdir(), 'gateway-start-'));
  const runtime = startRuntime(ROOT);

  beforeAll(() => {
    mkdirSync(join(root, 'scripts'));
    mkdirSync(join(root, 'dist'));
    // A build that is always current, so `npm start` goes straight to the gateway.
    writeFileSync(join(root, 'scripts', 'build-stamp.js'), 'process.exit(0);\n');
    writeFileSync(
      join(root, 'dist', 'main.js'),
      'process.stdout.write(JSON.stringify([process.env.MALLOC_ARENA_MAX, process.execArgv]));\n',
    );
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const run = (script: string, extraEnv: Record<string, string> = {}) => {
    // The developer's own settings out of the way: only what the script sets is seen.
    const environment: NodeJS.ProcessEnv = { ...process.env };
    delete environment.MALLOC_ARENA_MAX;
    delete environment.NODE_OPTIONS;
    Object.assign(environment, extraEnv);
    const result = spawnSync('sh', ['-c', scripts[script]], { cwd: root, env: environment });
    expect(result.stderr.toString()).toBe('');
    return JSON.parse(result.stdout.toString()) as [string | undefined, string[]];
  };

  it("reads two arenas and the gateway's V8 flags from start:prod", () => {
    expect(runtime).toEqual({
      env: { MALLOC_ARENA_MAX: '2' },
      nodeArgs: ['--liftoff-only', '--heap-growing-percent=100', '--max-semi-space-size=8'],
    });
  });

  it.each(['start', 'start:prod'])('npm run %s starts the gateway with them', (script) => {
    expect(run(script)).toEqual([runtime.env.MALLOC_ARENA_MAX, runtime.nodeArgs]);
  });

  it.each(['start', 'start:prod'])('npm run %s keeps an operator-set arena count', (script) => {
    expect(run(script, { MALLOC_ARENA_MAX: '4' })[0]).toBe('4');
  });

  it('the image starts the gateway the same way', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const stage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(stage).toMatch(/^ENV [^\n]*\bMALLOC_ARENA_MAX=2\b/m);
    const command = /^CMD (\[.*\])$/m.exec(stage)?.[1];
    expect(JSON.parse(command ?? 'null')).toEqual(['node', ...runtime.nodeArgs, 'dist/main.js']);
  });
});
