import { Logger } from '@nestjs/common';
import request from 'supertest';
import { chat } from './support/chat';
import { logged } from './support/logs';
import { proxiedPostgres, type TcpProxy } from './support/tcp-proxy';
import { startTestApp, TestApp } from './support/test-app';
import { waitUntil } from './support/eventually';

// Postgres behind a network that drops packets (no RST, no FIN): every wait on it must be
// bounded. "Postgres" is a TCP proxy in front of the machine's Postgres that the test makes
// swallow every byte, then forward again.

async function ready(app: TestApp): Promise<number> {
  return (await request(app.url).get('/health/ready').timeout(10_000)).status;
}

describe('when Postgres drops packets', () => {
  let proxy: TcpProxy;
  let gateway: TestApp;
  let warnings: jest.SpyInstance;
  let infos: jest.SpyInstance;
  let errors: jest.SpyInstance;
  let debugs: jest.SpyInstance;

  beforeAll(async () => {
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    infos = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    debugs = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    let databaseUrl: string;
    ({ proxy, databaseUrl } = await proxiedPostgres());
    gateway = await startTestApp({
      env: {
        DATABASE_URL: databaseUrl,
        KEY_CACHE_TTL_MS: '200',
        KEY_LISTENER_PING_INTERVAL_MS: '1000',
        DB_STATEMENT_TIMEOUT_MS: '2000',
        DB_PING_TIMEOUT_MS: '500',
        DB_CONNECT_TIMEOUT_MS: '500',
        ERROR_LOG_INTERVAL_MS: '60000',
      },
    });
  });

  afterAll(async () => {
    proxy.restore();
    await gateway.close();
    await proxy.stop();
    jest.restoreAllMocks();
  }, 20_000);

  it('serves cached keys at once, turns unready within 5 s, logs 503s once, and listens again soon after recovery', async () => {
    const key = await gateway.createKey();
    expect((await chat(gateway, key)).status).toBe(200);
    expect(await ready(gateway)).toBe(200);

    proxy.hang();
    const outage = Date.now();

    // The key is cached but past its TTL: it is still served (KEY_CACHE_STALE_MS).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    // The first reload gives up after DB_PING_TIMEOUT_MS (500 ms) and the stale answer is used,
    // well before the statement timeout (2 s) that a wait on the database would take...
    expect((await chat(gateway, key)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_500);
    // ...and while reloads keep failing, the next requests do not wait for them at all.
    const next = Date.now();
    expect((await chat(gateway, key)).status).toBe(200);
    expect(Date.now() - next).toBeLessThan(300);

    // Readiness answers 503 within 5 s of the outage, each probe itself bounded.
    await waitUntil(async () => (await ready(gateway)) === 503, 5_000, 50);
    expect(Date.now() - outage).toBeLessThan(5_000);

    // A key not cached needs the database: 503, and one log line for many of them.
    const unknown = 'gk-' + 'x'.repeat(40);
    const asked = Date.now();
    const answers = await Promise.all(Array.from({ length: 5 }, () => chat(gateway, unknown)));
    expect(answers.map((answer) => answer.status)).toEqual([503, 503, 503, 503, 503]);
    // Bounded by DB_PING_TIMEOUT_MS (500 ms here), not by the pool's query timeout.
    expect(Date.now() - asked).toBeLessThan(1_500);
    expect(logged(errors, 'service_unavailable')).toHaveLength(1);

    // The listener notices its dead connection by itself, well before TCP would.
    await waitUntil(
      () => logged(warnings, 'key change listener lost its connection').length > 0,
      5_000,
      50,
    );
    // ...and keeps trying, quietly, while the database stays away.
    await waitUntil(
      () => logged(debugs, 'key change listener lost its connection').length >= 2,
      5_000,
      50,
    );

    proxy.restore();
    console.log(`listener noticed the outage after ${Date.now() - outage} ms`);
    const recovery = await waitUntil(
      () => logged(infos, 'listening for key changes again').length > 0,
      10_000,
      50,
    );
    expect(recovery).toBeLessThan(10_000);
    console.log(`listener back ${recovery} ms after recovery`);
    await waitUntil(async () => (await ready(gateway)) === 200, 5_000, 50);
    // One warning for the whole outage, however many attempts it took.
    expect(logged(warnings, 'key change listener lost its connection')).toHaveLength(1);
    // The usage flush retried every second: one line, then the count when writes succeed again.
    await waitUntil(() => logged(infos, 'usage records are written again').length > 0, 3_000, 50);
    expect(
      logged(errors, 'could not write').filter(
        (line) => !line.includes('more failed usage write(s)'),
      ),
    ).toHaveLength(1);
  }, 40_000);
});
