import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import request from 'supertest';
import { ADMIN_KEY } from './support/admin';
import { BuiltGateway, spawnBuiltGateway } from './support/built-gateway';
import { compileGateway } from './support/compile-gateway';
import { chatBody } from './support/chat';
import { waitUntil } from './support/eventually';

const mock = (extra: Record<string, unknown> = {}) => ({
  provider: 'mock',
  chunk_delay_ms: 5,
  ...extra,
});

/**
 * A real process (`node dist/main.js`): SIGHUP must reach the gateway's own handler, and jest's
 * sandboxed `process` object does not receive real signals.
 */
describe('hot reload of GATEWAY_CONFIG (built gateway)', () => {
  let gateway: BuiltGateway;
  let child: BuiltGateway['child'];
  const stdout = () => gateway.output.stdout;
  let url: string;
  let client: OpenAI;
  let file: string;
  const write = (models: Record<string, unknown[]>, aliases?: Record<string, string>) =>
    writeFileSync(file, JSON.stringify({ models, aliases })); // JSON is YAML
  const reload = () =>
    request(url).post('/admin/config/reload').set('Authorization', `Bearer ${ADMIN_KEY}`);
  const complete = (model: string) => client.chat.completions.create(chatBody(model));

  beforeAll(async () => {
    compileGateway();
    const dir = mkdtempSync(join(tmpdir(), 'gateway-reload-'));
    file = join(dir, 'gateway.yaml');
    write({ 'alpha-k3': [mock()] });
    // Logs are JSON lines on stdout.
    gateway = spawnBuiltGateway({
      NO_COLOR: '1',
      HOST: '127.0.0.1',
      PORT: '0',
      GATEWAY_DATA_DIR: join(dir, 'data'),
      GATEWAY_CONFIG: file,
      ADMIN_API_KEY: ADMIN_KEY,
      KEY_RPM_LIMIT: '1000000', // the load below is far above the default 100 per minute
    });
    child = gateway.child;
    url = await gateway.listening();
    client = new OpenAI({ apiKey: await gateway.demoKey(), baseURL: `${url}/v1`, maxRetries: 0 });
  }, 120_000);

  afterAll(() => gateway.stop());

  it('serves a new model right after POST /admin/config/reload', async () => {
    await expect(complete('beta-new')).rejects.toMatchObject({ status: 404 });
    write({ 'alpha-k3': [mock()], 'beta-new': [mock()] });
    const response = await reload();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'config_reload',
      source: file,
      models: ['alpha-k3', 'beta-new'],
    });
    expect((await complete('beta-new')).model).toBe('beta-new');
  });

  it('reloads on SIGHUP within a second, and the process stays up', async () => {
    write({ 'alpha-k3': [mock()], 'gamma-hup': [mock()] });
    child.kill('SIGHUP');
    const started = Date.now();
    let answer: OpenAI.ChatCompletion | undefined;
    while (!answer && Date.now() - started < 1000)
      answer = await complete('gamma-hup').catch(() => undefined);
    expect(answer?.model).toBe('gamma-hup');
    expect(child.exitCode).toBeNull();
  });

  it('keeps the running config on an invalid file and logs one error naming the problem', async () => {
    write({ 'alpha-k3': [mock({ timout_ms: 5 })] });
    const response = await reload();
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('invalid_gateway_config');
    expect(response.body.error.message).toContain('timout_ms');

    writeFileSync(file, 'models: [unclosed');
    child.kill('SIGHUP');
    // JSON log lines on stdout (pino): one error line per failed reload.
    await waitUntil(() => (stdout().match(/Config reload failed/g) ?? []).length >= 2, 5_000, 20);
    const lines = stdout()
      .split('\n')
      .filter((line) => line.includes('Config reload failed'));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ level: 50 });
    expect(lines[0]).toMatch(/keeping the running config .*timout_ms/);
    expect(lines[1]).toContain(file);
    expect(child.exitCode).toBeNull();
    expect((await complete('gamma-hup')).model).toBe('gamma-hup');
  });

  it('reloads aliases on SIGHUP, and keeps them when a new one names an unknown model', async () => {
    await expect(complete('claude-haiku-4-5')).rejects.toMatchObject({ status: 404 });
    write({ 'alpha-k3': [mock()], 'gamma-hup': [mock()] }, { 'claude-haiku-*': 'gamma-hup' });
    child.kill('SIGHUP');
    const started = Date.now();
    let answer: OpenAI.ChatCompletion | undefined;
    while (!answer && Date.now() - started < 1000)
      answer = await complete('claude-haiku-4-5').catch(() => undefined);
    expect(answer?.model).toBe('claude-haiku-4-5');
    expect(answer?.choices[0].message.content).toContain('mock answer from gamma-hup');

    write({ 'alpha-k3': [mock()], 'gamma-hup': [mock()] }, { 'claude-haiku-*': 'delta-none' });
    const response = await reload();
    expect(response.status).toBe(422);
    expect(response.body.error.message).toContain(
      'aliases.claude-haiku-*: unknown model "delta-none"',
    );
    expect((await complete('claude-haiku-4-5')).model).toBe('claude-haiku-4-5');
    write({ 'alpha-k3': [mock()], 'gamma-hup': [mock()] });
    expect((await reload()).status).toBe(200);
  });

  it('drops no request or stream while reloading several times under load', async () => {
    write({ 'alpha-k3': [mock()] });
    expect((await reload()).status).toBe(200);
    let running = true;
    const failures: unknown[] = [];
    let completed = 0;
    const worker = async (stream: boolean) => {
      while (running) {
        try {
          if (stream) {
            const chunks = await client.chat.completions.create({
              model: 'alpha-k3',
              messages: [{ role: 'user', content: 'hello there' }],
              stream: true,
            });
            let finished = false;
            for await (const chunk of chunks) if (chunk.choices[0]?.finish_reason) finished = true;
            if (!finished) throw new Error('stream ended without finish_reason');
          } else {
            await complete('alpha-k3');
          }
          completed++;
        } catch (error) {
          failures.push(error);
        }
      }
    };
    const workers = [worker(false), worker(false), worker(true), worker(true)];
    for (let round = 0; round < 6; round++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      // Change the deployment's settings, and add then remove another model, by both routes.
      write(
        round % 2 === 0
          ? { 'alpha-k3': [mock({ chunk_delay_ms: 8 })], 'delta-extra': [mock()] }
          : { 'alpha-k3': [mock()] },
      );
      if (round % 2 === 0) expect((await reload()).status).toBe(200);
      else child.kill('SIGHUP');
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
    running = false;
    await Promise.all(workers);
    expect(failures).toEqual([]);
    expect(completed).toBeGreaterThan(20);
    expect(stdout().match(/Reloaded \d+ public model/g)?.length).toBeGreaterThanOrEqual(8);
    expect(child.exitCode).toBeNull();
  }, 30_000);
});
