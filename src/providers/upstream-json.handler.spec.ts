import { loadAppConfig } from '../config/app-config';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { UpstreamError } from '../common/errors/upstream.error';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { UpstreamHttpClient, type UpstreamHttpRequest } from './upstream-http.client';

// postJson collects the answer in a dispatch handler (JsonAnswerHandler); these tests drive it
// with a real HTTP server that answers each path its own way, and watch the server's sockets to
// see that a cut-off answer closes the upstream connection.

type Route = (request: IncomingMessage, response: ServerResponse) => void;

const MAX_BODY = 64 * 1024;

describe('UpstreamHttpClient.postJson', () => {
  let server: Server;
  let origin: string;
  let client: UpstreamHttpClient;
  const sockets = new Set<Socket>();
  const routes: Record<string, Route> = {};

  let connections = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => routes[request.url ?? '']?.(request, response));
    });
    server.on('connection', (socket: Socket) => {
      connections++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    client = new UpstreamHttpClient(loadAppConfig({ UPSTREAM_MAX_BODY_BYTES: MAX_BODY }));
  });
  afterEach(async () => {
    await client.onModuleDestroy();
  });

  const deployment = (maxConcurrency: number | null = null) =>
    ({ name: 'spec', maxConcurrency, maxQueueMs: 0 }) as unknown as DeploymentConfig;

  const request = (path: string, overrides: Partial<UpstreamHttpRequest> = {}) => ({
    url: `${origin}${path}`,
    headers: { 'content-type': 'application/json' },
    body: '{}',
    timeoutMs: 2_000,
    signal: new AbortController().signal,
    deployment: deployment(),
    ...overrides,
  });

  const closedSoon = async () => {
    for (let i = 0; i < 100 && sockets.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
    return sockets.size;
  };

  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a rejection');
      },
      (error: unknown) => error,
    );

  it('parses an answer that arrives in many chunks without a declared length', async () => {
    routes['/chunked'] = (_request, response) => {
      response.write('{"parts":[');
      for (let i = 0; i < 200; i++) response.write(`${i ? ',' : ''}"${'x'.repeat(100)}"`);
      response.end(']}');
    };
    const answer = (await client.postJson(request('/chunked'))) as { parts: string[] };
    expect(answer.parts).toHaveLength(200);
  });

  it('keeps a multi-byte character split across chunks whole', async () => {
    routes['/split'] = (_request, response) => {
      const bytes = Buffer.from('{"text":"é😀"}');
      response.write(bytes.subarray(0, 10)); // inside the two-byte "é"
      setTimeout(() => response.end(bytes.subarray(10)), 5);
    };
    expect(await client.postJson(request('/split'))).toEqual({ text: 'é😀' });
  });

  it('cuts off an answer over the limit as it arrives and closes the connection', async () => {
    routes['/endless'] = (_request, response) => {
      const timer = setInterval(() => response.write('x'.repeat(8 * 1024)), 1);
      response.on('close', () => clearInterval(timer));
    };
    const error = await failure(client.postJson(request('/endless')));
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).kind).toBe('invalid_response');
    expect((error as UpstreamError).detail).toContain('UPSTREAM_MAX_BODY_BYTES');
    expect(await closedSoon()).toBe(0);
  });

  it('refuses a declared length over the limit before reading the body', async () => {
    let written = 0;
    routes['/declared'] = (_request, response) => {
      response.writeHead(200, { 'content-length': String(MAX_BODY + 1) });
      response.write('{', () => (written = 1));
      // The rest never comes: a handler that waited for it would hang until the timeout.
    };
    const started = Date.now();
    const error = (await failure(client.postJson(request('/declared')))) as UpstreamError;
    expect(error.kind).toBe('invalid_response');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(written).toBeLessThanOrEqual(1);
    expect(await closedSoon()).toBe(0);
  });

  it('classifies an error answer from its first 64 KiB without waiting for the rest', async () => {
    routes['/refused'] = (_request, response) => {
      response.writeHead(429, { 'retry-after': '7' });
      response.write(`{"error":"${'slow down '.repeat(7_000)}`);
      // Never ended.
    };
    const seen: Array<[number, number, string | undefined]> = [];
    const started = Date.now();
    const error = await failure(
      client.postJson(
        request('/refused', {
          errorFromResponse: (status, body, retryAfter) => {
            seen.push([status, body.length, retryAfter]);
            return new UpstreamError('rate_limited', 'spec', { retryAfterSeconds: 7 });
          },
        }),
      ),
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((error as UpstreamError).kind).toBe('rate_limited');
    expect(seen).toEqual([[429, 64 * 1024, '7']]);
    expect(await closedSoon()).toBe(0);
  });

  it('classifies a short error answer with the default reading of its status', async () => {
    routes['/down'] = (_request, response) => {
      response.writeHead(503);
      response.end('{"error":"down"}');
    };
    const error = (await failure(client.postJson(request('/down')))) as UpstreamError;
    expect(error.kind).toBe('unavailable');
  });

  it('fails with invalid_response for a 2xx answer that is not JSON', async () => {
    routes['/html'] = (_request, response) => response.end('<html>');
    const error = (await failure(client.postJson(request('/html')))) as UpstreamError;
    expect(error).toMatchObject({ kind: 'invalid_response', detail: 'completion is not JSON' });
  });

  it('rejects with the signal reason once aborted, and closes the connection', async () => {
    routes['/silent'] = () => undefined; // headers never come
    const controller = new AbortController();
    const pending = failure(client.postJson(request('/silent', { signal: controller.signal })));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sockets.size).toBe(1);
    const reason = new Error('client went away');
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(await closedSoon()).toBe(0);
  });

  it('sends nothing for a signal aborted before the call', async () => {
    let reached = false;
    routes['/never'] = (_request, response) => {
      reached = true;
      response.end('{}');
    };
    const controller = new AbortController();
    const reason = new Error('gone already');
    controller.abort(reason);
    const before = connections;
    expect(await failure(client.postJson(request('/never', { signal: controller.signal })))).toBe(
      reason,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reached).toBe(false);
    // Not even a connection is taken (and closed again) for it.
    expect(connections).toBe(before);
  });

  it('classifies an error answer whose body breaks off by its status and Retry-After', async () => {
    routes['/refused-then-reset'] = (_request, response) => {
      response.writeHead(429, { 'retry-after': '7', 'content-length': '1000' });
      response.write('{"error":{"message":"slow', () =>
        setTimeout(() => response.socket?.destroy(), 20),
      );
    };
    const seen: Array<[number, string, string | undefined]> = [];
    const error = (await failure(
      client.postJson(
        request('/refused-then-reset', {
          errorFromResponse: (status, body, retryAfter) => {
            seen.push([status, body, retryAfter]);
            return new UpstreamError('rate_limited', 'spec', { retryAfterSeconds: 7 });
          },
        }),
      ),
    )) as UpstreamError;
    expect(error.kind).toBe('rate_limited');
    expect(seen).toEqual([[429, '{"error":{"message":"slow', '7']]);
  });

  it('refuses a URL it cannot parse as an UpstreamError, and gives the slot back', async () => {
    routes['/ok'] = (_request, response) => response.end('{"ok":true}');
    const oneSlot = deployment(1);
    const error = (await failure(
      client.postJson(request('', { url: 'not a url', deployment: oneSlot })),
    )) as UpstreamError;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.kind).toBe('unavailable');
    expect(await client.postJson(request('/ok', { deployment: oneSlot }))).toEqual({ ok: true });
  });

  it('times out waiting for headers as an UpstreamError timeout', async () => {
    routes['/late'] = () => undefined;
    const error = (await failure(
      client.postJson(request('/late', { timeoutMs: 100 })),
    )) as UpstreamError;
    expect(error.kind).toBe('timeout');
    expect(error.detail).toContain('UND_ERR_HEADERS_TIMEOUT');
  });

  it('gives the concurrency slot back after every kind of outcome', async () => {
    routes['/ok'] = (_request, response) => response.end('{"ok":true}');
    const oneSlot = deployment(1);
    // maxQueueMs 0: a call made while the slot is still held fails with `overloaded` at once.
    const results: unknown[] = [];
    for (const path of ['/ok', '/down', '/html', '/endless', '/ok'])
      results.push(
        await client
          .postJson(request(path, { deployment: oneSlot }))
          .catch((error: unknown) => (error as UpstreamError).kind),
      );
    expect(results).toEqual([
      { ok: true },
      'unavailable',
      'invalid_response',
      'invalid_response',
      { ok: true },
    ]);
    expect(client.gateFor(oneSlot)?.inFlight).toBe(0);
  });
});
