import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startTestApp, TestApp } from './support/test-app';

/** The quick start: no DATABASE_URL, no GATEWAY_CONFIG. */
async function startOnEmbeddedDefaults(
  dataDir: string,
): Promise<{ gateway: TestApp; printed: string }> {
  const savedUrl = process.env.DATABASE_URL;
  const written: string[] = [];
  const originalWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    written.push(String(chunk));
    return (originalWrite as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  delete process.env.DATABASE_URL;
  try {
    const gateway = await startTestApp({
      env: { GATEWAY_DATA_DIR: dataDir, DATABASE_URL: '', GATEWAY_CONFIG: '' },
    });
    return { gateway, printed: written.join('') };
  } finally {
    process.env.DATABASE_URL = savedUrl;
    process.stdout.write = originalWrite;
  }
}

describe('embedded defaults: PGlite and the mock provider', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-embedded-'));
  let demoKey: string;

  it('migrates an embedded database, prints a demo key once and serves the public models', async () => {
    const { gateway, printed } = await startOnEmbeddedDefaults(dataDir);
    try {
      const match = /Demo virtual key: (gk-[A-Za-z0-9_-]+)/.exec(printed);
      expect(match).not.toBeNull();
      demoKey = match![1];
      const client = new OpenAI({ apiKey: demoKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      for (const model of ['alpha-k3', 'beta-v4-pro-0813', 'beta-v4-flash-0731']) {
        const result = await client.chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'hello' }],
        });
        expect(result.model).toBe(model);
        expect(result.choices[0].message.content).toContain(`mock answer from ${model}`);
      }
    } finally {
      await gateway.close();
    }
  }, 60_000);

  it('keeps its data across restarts and does not print a new key', async () => {
    const { gateway, printed } = await startOnEmbeddedDefaults(dataDir);
    try {
      expect(printed).not.toContain('Demo virtual key');
      const client = new OpenAI({ apiKey: demoKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const result = await client.chat.completions.create({
        model: 'alpha-k3',
        messages: [{ role: 'user', content: 'again' }],
      });
      expect(result.object).toBe('chat.completion');
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
