import { CallHandler, ExecutionContext, Logger } from '@nestjs/common';
import { loadAppConfig } from '../../config/app-config';
import { get, type IncomingMessage, type ServerResponse } from 'node:http';
import { lastValueFrom, of } from 'rxjs';
import { UpstreamError } from '../errors/upstream.error';
import { bodyText, listen } from '../http/loopback-server.fixture';
import { EventStream, type SseEncoder } from './sse-encoder';
import { dataFrame, HEARTBEAT_COMMENT } from './sse-frames';
import { SseInterceptor } from './sse.interceptor';
import { SseStream } from './sse-stream';

const encoder: SseEncoder<unknown, unknown> = {
  heartbeat: HEARTBEAT_COMMENT,
  encode: (batch) => batch.map(dataFrame).join(''),
  end: () => 'data: [DONE]\n\n',
  error: () => dataFrame({ error: { code: 'upstream_error' } }),
};

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

  it('passes a plain result through untouched, an async iterable included', async () => {
    const body = { id: 'chatcmpl_x' };
    expect(await intercept(body, { getHeader: () => undefined })).toBe(body);
    const iterable = (async function* () {})();
    expect(await intercept(iterable, { getHeader: () => undefined })).toBe(iterable);
  });

  it("turns an EventStream into an event stream in its encoder's frames, with the configured heartbeat", async () => {
    async function* slow() {
      yield [{ n: 1 }];
      await new Promise((resolve) => setTimeout(resolve, 60));
      yield [{ n: 2 }];
    }
    const events = () => new EventStream(slow(), encoder);
    expect(await intercept(events(), { getHeader: () => undefined })).toBeInstanceOf(SseStream);

    const body = await served(events(), { SSE_HEARTBEAT_MS: 10 });
    expect(body.startsWith('data: {"n":1}\n\n' + HEARTBEAT_COMMENT)).toBe(true);
    expect(body.endsWith('data: {"n":2}\n\ndata: [DONE]\n\n')).toBe(true);
    const quiet = await served(events(), { SSE_HEARTBEAT_MS: 0 });
    expect(quiet).not.toContain(HEARTBEAT_COMMENT);
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
    const body = await served(new EventStream(failing(), encoder), { SSE_HEARTBEAT_MS: 0 });
    expect(body).toContain('"code":"upstream_error"');
    expect(body).not.toContain('[DONE]');
    expect(warnings).toEqual([
      'request req_test: stream failed after the first chunk: unavailable: socket hang up',
    ]);
  });
});
