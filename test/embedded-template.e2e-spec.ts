import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { maintainedMonths, partitionName } from '../src/usage/usage-partitions.service';
import { BuiltGateway, spawnBuiltGateway } from './support/built-gateway';
import { compileGateway } from './support/compile-gateway';

const ROOT = join(__dirname, '..');

/**
 * Starts the built gateway on a data folder: its URL once ready (and on a first start,
 * `firstStart`, its demo key, the last thing it prints), and its output.
 */
const running = new Set<BuiltGateway>();
afterEach(() => running.forEach((gateway) => gateway.child.kill('SIGKILL')));

function start(dataDir: string, firstStart = false) {
  const gateway = spawnBuiltGateway({ HOST: '127.0.0.1', PORT: '0', GATEWAY_DATA_DIR: dataDir });
  running.add(gateway);
  gateway.child.once('exit', () => running.delete(gateway));
  const ready = gateway.listening().then(async (url) => ({
    url,
    key: firstStart
      ? await gateway.demoKey()
      : /Demo virtual key: (gk-\S+)/.exec(gateway.output.stdout)?.[1],
  }));
  return { child: gateway.child, ready, output: () => gateway.output.stdout };
}

/** usage_records_YYYY_MM of this UTC month and the next two, as partition maintenance keeps them. */
const partitionsFrom = (now: Date) => maintainedMonths(now).map(partitionName);

describe('embedded database template (npm run build)', () => {
  let built: string;
  let builtAt: Date;

  beforeAll(() => {
    compileGateway();
    builtAt = new Date();
    built = execFileSync(process.execPath, [join(ROOT, 'scripts/build-embedded-template.js')], {
      cwd: ROOT,
    }).toString();
  }, 120_000);

  it("holds this month's usage partitions and the next two", () => {
    expect(built).toContain(`usage partitions ${partitionsFrom(builtAt).join(', ')}`);
  });

  it('creates a new, migrated data folder from the template, and a later start opens the folder as it is', async () => {
    expect(existsSync(join(ROOT, 'dist', 'embedded-pgdata', 'PG_VERSION'))).toBe(true);
    const dataDir = join(mkdtempSync(join(tmpdir(), 'gateway-template-')), 'data');

    const first = start(dataDir, true);
    const { url, key } = await first.ready;
    // The demo key is the start's last output, after the listening line; no listing of Nest's
    // modules and routes at the default level to scroll past.
    expect(first.output().trimEnd().endsWith(`Demo virtual key: ${key}`)).toBe(true);
    expect(first.output()).not.toContain('Mapped {');
    expect(first.output()).not.toContain('RoutesResolver');
    expect(first.output()).not.toContain('dependencies initialized');
    expect(first.output()).toContain("from the build's initialised template");
    // The build applied the migrations to the template: the first start only checks them.
    expect(first.output()).toMatch(
      /database schema up to date \(0 applied, [1-9]\d* already applied\)/,
    );
    // The template's partitions serve this month: the first start makes none (unless the month
    // turned since the build, when it makes the one new month).
    if (partitionsFrom(new Date())[0] === partitionsFrom(builtAt)[0])
      expect(first.output()).not.toContain('created partitions');
    const client = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: 'alpha-k3',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices[0].message.content).toContain('alpha-k3');
    first.child.kill('SIGTERM');
    await new Promise((resolve) => first.child.once('exit', resolve));

    const second = start(dataDir);
    const again = await second.ready;
    expect(second.output()).not.toContain("from the build's initialised template");
    // The key made on the first start is still there: the folder was kept, not replaced.
    const sameKey = new OpenAI({ apiKey: key, baseURL: `${again.url}/v1`, maxRetries: 0 });
    expect(
      (
        await sameKey.chat.completions.create({
          model: 'alpha-k3',
          messages: [{ role: 'user', content: 'hi' }],
        })
      ).choices,
    ).toHaveLength(1);
    second.child.kill('SIGTERM');
    await new Promise((resolve) => second.child.once('exit', resolve));
  }, 60_000);
});
