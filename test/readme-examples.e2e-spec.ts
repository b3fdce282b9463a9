import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The README's examples run as given against the demo's models (the built-in mock, as `npm start`
 * serves them), and the sample output printed under each is what the demo answers, ids and
 * timestamps aside: the curl commands run through `sh` as a reader would paste them, and
 * examples/openai-client.mjs runs with `node`.
 */
const ROOT = join(__dirname, '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const quickStart = readme.slice(
  readme.indexOf('## Quick start'),
  readme.indexOf('## Configuration'),
);
const blocks = [...quickStart.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
const run = promisify(execFile);

/** The code block that contains `marker`, and the block after it (its sample output). */
function example(marker: string): { command: string; sample: string } {
  const index = blocks.findIndex((block) => block.includes(marker));
  if (index < 0 || index + 1 >= blocks.length) throw new Error(`README: no example with ${marker}`);
  return { command: blocks[index], sample: blocks[index + 1] };
}

/** What differs from one run to the next: completion ids and timestamps. */
const stable = (text: string) =>
  text
    .replace(/"id":"chatcmpl_[0-9a-f]+"/g, '"id":"chatcmpl_<id>"')
    .replace(/"created":\d+/g, '"created":<time>')
    .trim();

describe('README examples (e2e)', () => {
  let gateway: TestApp;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    gateway = await startTestApp();
    env = Object.assign({}, process.env, {
      GATEWAY_KEY: await gateway.createKey(),
      GATEWAY_BASE_URL: `${gateway.url}/v1`,
    });
  });

  afterAll(async () => {
    await gateway?.close();
  });

  const shell = async (command: string) => (await run('sh', ['-c', command], { env })).stdout;

  it('the completion: curl as written, the JSON shown', async () => {
    const { command, sample } = example('"content": "Hello!"}]}\'\n');
    expect(command).not.toContain('"stream": true');
    expect(stable(await shell(command))).toBe(stable(sample));
  });

  it('the stream: curl -N as written, the events shown', async () => {
    const { command, sample } = example('"stream": true');
    const output = await shell(command);
    expect(output.trim().endsWith('data: [DONE]')).toBe(true);
    expect(stable(output)).toBe(stable(sample));
  });

  it('the models list and one model: owned_by "mock" on the demo', async () => {
    const command = blocks.find((block) => block.includes('$GATEWAY_BASE_URL/models"')) ?? '';
    const lines = command.trim().split('\n');
    const pairs = lines.flatMap((line, i) =>
      line.startsWith('curl ') ? [[line, lines[i + 1].replace(/^# /, '')]] : [],
    );
    expect(pairs).toHaveLength(2);
    for (const [curl, sample] of pairs) {
      expect(sample).toContain('"owned_by":"mock"');
      expect(stable(await shell(curl))).toBe(stable(sample));
    }
  });

  it('examples/openai-client.mjs: runs with node as given, and prints what the README shows', async () => {
    const { command, sample } = example('node examples/openai-client.mjs');
    expect(command.trim()).toBe('node examples/openai-client.mjs');
    expect(readFileSync(join(ROOT, 'examples', 'openai-client.mjs'), 'utf8')).toContain(
      'npm i openai',
    );
    const { stdout } = await run(process.execPath, ['examples/openai-client.mjs'], {
      cwd: ROOT,
      env,
    });
    expect(stdout.trim()).toBe(sample.trim());
  });

  it('examples/openai-client.mjs without GATEWAY_KEY: one line saying what to set, status 1', async () => {
    const failed = await run(process.execPath, ['examples/openai-client.mjs'], {
      cwd: ROOT,
      env: Object.assign({}, env, { GATEWAY_KEY: '' }),
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({
      code: 1,
      stderr: 'Set GATEWAY_KEY to a virtual key (the demo key printed by `npm start`).\n',
    });
  });
});
