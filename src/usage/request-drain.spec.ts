import { Logger } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { get, type ServerResponse } from 'node:http';
import { bodyText, listen, type LoopbackServer } from '../common/http/loopback-server.fixture';
import { RequestDrain } from './request-drain.service';

const noServer = { httpAdapter: undefined } as unknown as HttpAdapterHost;

/** Resolves to 'drained' or, if drain() is still waiting after `ms`, to 'waiting'. */
function settledWithin(drain: Promise<void>, ms: number): Promise<'drained' | 'waiting'> {
  return Promise.race([
    drain.then(() => 'drained' as const),
    new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), ms)),
  ]);
}

describe('RequestDrain', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('drains at once when nothing runs, and waits for the last unit of work otherwise', async () => {
    const drain = new RequestDrain(noServer, 5_000);
    await expect(settledWithin(drain.drain(), 50)).resolves.toBe('drained');

    const first = drain.begin();
    const second = drain.begin();
    const draining = drain.drain();
    first();
    first(); // ending twice counts once
    await expect(settledWithin(draining, 30)).resolves.toBe('waiting');
    second();
    await expect(settledWithin(draining, 50)).resolves.toBe('drained');
  });

  it('gives up after its timeout and says how much work is left', async () => {
    const errors: string[] = [];
    jest
      .spyOn(Logger.prototype, 'error')
      .mockImplementation((message: unknown) => void errors.push(String(message)));
    const drain = new RequestDrain(noServer, 30);
    drain.begin();
    await expect(settledWithin(drain.drain(), 500)).resolves.toBe('drained');
    expect(errors).toEqual([
      'requests still running after 30 ms (0 response(s) open); their usage may be lost',
    ]);
  });

  describe('with an HTTP server', () => {
    let loopback: LoopbackServer;
    let respond: (() => void) | undefined;

    beforeEach(async () => {
      loopback = await listen((_request, response) => {
        response.write('partial ');
        respond = () => response.end('done');
      });
    });

    afterEach(() => loopback.close());

    it('counts each HTTP exchange, stops listening while draining, and waits for the exchange to end', async () => {
      const drain = new RequestDrain(
        { httpAdapter: { getHttpServer: () => loopback.server } } as unknown as HttpAdapterHost,
        5_000,
      );
      drain.onApplicationBootstrap();
      const body = new Promise<string>((resolve, reject) =>
        get({ host: '127.0.0.1', port: loopback.port, agent: false }, (response) => {
          bodyText(response).then(resolve, reject);
        }).on('error', reject),
      );
      while (!respond) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(drain.inFlight).toBe(1);

      const draining = drain.drain();
      expect(loopback.server.listening).toBe(false);
      await expect(settledWithin(draining, 30)).resolves.toBe('waiting');
      respond();
      await expect(body).resolves.toBe('partial done');
      await expect(settledWithin(draining, 200)).resolves.toBe('drained');
    });

    it('counts a request once while its exchange and its pipeline work run, and after it left', async () => {
      const drain = new RequestDrain(
        { httpAdapter: { getHttpServer: () => loopback.server } } as unknown as HttpAdapterHost,
        5_000,
      );
      drain.onApplicationBootstrap();
      let exchange: ServerResponse | undefined;
      loopback.server.prependListener('request', (_request, response) => (exchange = response));
      const client = get({ host: '127.0.0.1', port: loopback.port, agent: false });
      client.on('error', () => undefined);
      while (!exchange) await new Promise((resolve) => setTimeout(resolve, 5));
      const closed = new Promise((resolve) => exchange!.once('close', resolve));
      // The pipeline's unit of work for the same exchange, as RequestContext hands it over.
      const workDone = drain.begin(exchange);
      const other = drain.begin(); // work of no exchange: a request of its own
      expect(drain.inFlight).toBe(2);
      client.destroy(); // the client leaves; the pipeline is still recording the outcome
      await closed;
      expect(drain.inFlight).toBe(2);
      workDone();
      other();
      expect(drain.inFlight).toBe(0);
    });
  });
});
