import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnBuiltGateway } from './support/built-gateway';
import { compileGateway } from './support/compile-gateway';

const ROOT = join(__dirname, '..');

interface Run {
  code: number | null;
  stdout: string;
  stderrLines: string[];
}

/** Runs the built gateway (`node dist/main.js`, as in production) until it exits or is stopped. */
function runGateway(
  env: Record<string, string>,
  stopWhen?: (stdout: string) => boolean,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const { child, output } = spawnBuiltGateway({
      NO_COLOR: '1',
      LOG_LEVEL: 'log',
      HOST: '127.0.0.1',
      ...env,
    });
    child.stdout.on('data', () => {
      if (stopWhen?.(output.stdout)) child.kill('SIGTERM');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout: output.stdout,
        stderrLines: output.stderr.split('\n').filter((line) => line.trim() !== ''),
      });
    });
  });
}

describe('start-up errors name what to fix (built gateway)', () => {
  let blocker: Server;
  let takenPort: number;

  beforeAll(async () => {
    compileGateway();
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    takenPort = (blocker.address() as AddressInfo).port;
  }, 120_000);
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('a taken PORT: one line naming PORT, status 1, and no demo key lost before listen', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-startup-'));
    const failed = await runGateway({ PORT: String(takenPort), GATEWAY_DATA_DIR: dataDir });
    expect(failed.code).toBe(1);
    expect(failed.stderrLines).toHaveLength(1);
    expect(failed.stderrLines[0]).toContain(
      `PORT=${takenPort}: 127.0.0.1:${takenPort} is already in use`,
    );
    expect(failed.stdout).not.toContain('Demo virtual key');

    // The failed start created no key, so the next one that listens still prints one.
    // The key is the start's last output, after the listening line.
    const ok = await runGateway({ PORT: '0', GATEWAY_DATA_DIR: dataDir }, (out) =>
      /Demo virtual key: gk-\S+\n/.test(out),
    );
    expect(ok.stdout).toMatch(/Demo virtual key: gk-/);
    expect(ok.stdout.indexOf('Demo virtual key')).toBeGreaterThan(
      ok.stdout.indexOf('Nest application successfully started'),
    );
    expect(ok.stdout.indexOf('Demo virtual key')).toBeGreaterThan(
      ok.stdout.indexOf('gateway listening'),
    );
  }, 60_000);

  it('an unreachable DATABASE_URL: one line naming DATABASE_URL, without its password', async () => {
    const run = await runGateway({
      PORT: '0',
      DATABASE_URL: 'postgresql://gateway:s3cret@127.0.0.1:1/gateway',
    });
    expect(run.code).toBe(1);
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toContain(
      'DATABASE_URL (postgresql://gateway:***@127.0.0.1:1/gateway): connect ECONNREFUSED',
    );
    expect(run.stderrLines[0]).not.toContain('s3cret');
  }, 30_000);

  it('a DATABASE_URL that is not a URL: one line naming DATABASE_URL', async () => {
    const run = await runGateway({ PORT: '0', DATABASE_URL: 'gateway-db:5432' });
    expect(run.code).toBe(1);
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toContain('DATABASE_URL must be a postgresql://');
  }, 30_000);

  it('a typo in the YAML config: one line naming the file and the field', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gateway-startup-')), 'gateway.yaml');
    writeFileSync(file, 'models:\n  alpha-k3:\n    - provider: mock\n      timout_ms: 5000\n');
    const run = await runGateway({
      PORT: '0',
      DATABASE_URL: process.env.DATABASE_URL!,
      GATEWAY_CONFIG: file,
    });
    expect(run.code).toBe(1);
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toContain(
      `GATEWAY_CONFIG ${file}: models.alpha-k3[0].timout_ms: unknown field`,
    );
  }, 30_000);

  it('the production example config without OPENAI_API_KEY: one line naming the variable, no mock fallback', async () => {
    const file = join(ROOT, 'gateway.example.yaml');
    const run = await runGateway({
      PORT: '0',
      DATABASE_URL: process.env.DATABASE_URL!,
      GATEWAY_CONFIG: file,
    });
    expect(run.code).toBe(1);
    expect(run.stderrLines).toHaveLength(1);
    expect(run.stderrLines[0]).toContain(
      `GATEWAY_CONFIG ${file}: models.alpha-k3[0].api_key: environment variable OPENAI_API_KEY is not set`,
    );
  }, 30_000);

  it('a bad PORT: one line naming PORT', async () => {
    const run = await runGateway({ PORT: 'eighty' });
    expect(run.code).toBe(1);
    expect(run.stderrLines).toEqual([
      expect.stringContaining('Invalid environment: PORT must be an integer number'),
    ]);
  }, 30_000);
});
