import { CallHandler, ExecutionContext, Logger } from '@nestjs/common';
import { loadAppConfig } from '../../config/app-config';
import { get, type IncomingMessage, type ServerResponse } from 'node:http';
import { lastValueFrom, of } from 'rxjs';
import { UpstreamError } from '../errors/upstream.error';
import { bodyText, listen } from '../http/loopback-server.fixture';
import { HEARTBEAT_FRAME } from './sse-frames';
import { SseInterceptor } from './sse.interceptor';
import { SseStream } from './sse-stream';

/** The interceptor's result for `result`, as it runs for a request answered by `response`. */
function intercept(
  result: unknown,
  response: Pick<ServerResponse, 'getHeader'>,
  env: Record<string, number> = {},
): Promise<unknown> {
  const interceptor = new SseInterceptor(loadAppConfig(env));
  const context = {
    switchToHttp: () => ({ getResponse: () => response }),
  } as unknown as ExecutionContext;
  const next: CallHandler = { handle: () => of(result) };
  return lastValueFrom(interceptor.intercept(context, next));
}

/**
 * Runs one request through a real HTTP server whose handler turns `result` into the
 * interceptor's stream and writes it; resolves with the body the client read.
 */
async function served(result: unknown, env: Record<string, number>): Promise<string> {
  const server = await listen(async (_request, response) => {
    response.setHeader('x-request-id', 'req_test');
    const stream = (await intercept(result, response, env)) as SseStream;
    stream.writeTo(response);
  });
  try {
    const response = await new Promise<IncomingMessage>((resolve) =>
      get({ host: '127.0.0.1', port: server.port, agent: false }, resolve),
    );
    return await bodyText(response);
  } finally {
    await server.close();
  }
}

describe('SseInterceptor', () => {
  afterEach(() => jest.restoreAllMocks());

  it('passes a plain result through untouched', async () => {
    const body = { id: 'chatcmpl_x' };
    expect(await intercept(body, { getHeader: () => undefined })).toBe(body);
  });

  it('turns an async iterable into an event stream with the configured heartbeat', async () => {
    async function* slow() {
      yield [{ n: 1 }];
      await new Promise((resolve) => setTimeout(resolve, 60));
      yield [{ n: 2 }];
    }
    expect(await intercept(slow(), { getHeader: () => undefined })).toBeInstanceOf(SseStream);

    const body = await served(slow(), { SSE_HEARTBEAT_MS: 10 });
    expect(body.startsWith('data: {"n":1}\n\n' + HEARTBEAT_FRAME)).toBe(true);
    expect(body.endsWith('data: {"n":2}\n\ndata: [DONE]\n\n')).toBe(true);
    const quiet = await served(slow(), { SSE_HEARTBEAT_MS: 0 });
    expect(quiet).not.toContain(HEARTBEAT_FRAME);
  });

  it('logs a failure after the first chunk with the request id, and sends it as an error event', async () => {
    const warnings: string[] = [];
    jest
      .spyOn(Logger.prototype, 'warn')
      .mockImplementation((message: unknown) => void warnings.push(String(message)));
    async function* failing() {
      yield [{ n: 1 }];
      throw new UpstreamError('unavailable', 'socket hang up');
    }
    const body = await served(failing(), { SSE_HEARTBEAT_MS: 0 });
    expect(body).toContain('"code":"upstream_error"');
    expect(body).not.toContain('[DONE]');
    expect(warnings).toEqual([
      'request req_test: stream failed after the first chunk: unavailable: socket hang up',
    ]);
  });
});
