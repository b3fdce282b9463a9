import type { ArgumentsHost } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Request } from 'express';
import { AppConfig, loadAppConfig } from '../../config/app-config';
import { GatewayException } from '../errors/gateway.exception';
import { UpstreamError } from '../errors/upstream.error';
import { ErrorEnvelopes, type ErrorEnvelope } from './error-envelope';
import { GatewayExceptionFilter } from './gateway-exception.filter';

/** What the filter wrote to a response for a request to `path`. */
function answered(filter: GatewayExceptionFilter, exception: unknown, path: string) {
  const written = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown };
  const response = {
    headersSent: false,
    getHeader: () => 'req_1',
    setHeader: (name: string, value: string) => (written.headers[name] = value),
    status(status: number) {
      written.status = status;
      return this;
    },
    json: (body: unknown) => (written.body = body),
  };
  const request = { method: 'POST', path } as Request;
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  filter.catch(exception, host);
  return written;
}

/** Anthropic-like: its own body, and 529 for an overloaded gateway. */
const messagesEnvelope: ErrorEnvelope = {
  render: (error, requestId) => ({
    status: error.code === 'gateway_overloaded' ? 529 : error.status,
    headers: { ...error.headers, 'request-id': requestId },
    body: { type: 'error', error: { type: error.type, message: error.message } },
  }),
};

describe('GatewayExceptionFilter', () => {
  async function filterWithMessagesFormat() {
    const module = await Test.createTestingModule({
      providers: [
        GatewayExceptionFilter,
        ErrorEnvelopes,
        { provide: AppConfig, useValue: loadAppConfig({}) },
      ],
    }).compile();
    module
      .get(ErrorEnvelopes)
      .register((request) => request.path.startsWith('/v1/messages'), messagesEnvelope);
    return module.get(GatewayExceptionFilter);
  }

  it("answers in OpenAI's envelope where no format registered its own", async () => {
    const filter = await filterWithMessagesFormat();
    const written = answered(
      filter,
      new GatewayException('model_not_found'),
      '/v1/chat/completions',
    );
    expect(written.status).toBe(404);
    expect(written.body).toEqual({
      error: {
        message: 'The requested model does not exist.',
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
        source: 'gateway',
      },
    });
  });

  it("answers in the request's format's envelope, from the same code table", async () => {
    const filter = await filterWithMessagesFormat();
    const overloaded = new UpstreamError('overloaded', 'no slot', { retryAfterSeconds: 2 });
    const written = answered(filter, overloaded, '/v1/messages');
    expect(written.status).toBe(529);
    expect(written.headers).toEqual({ 'retry-after': '2', 'request-id': 'req_1' });
    expect(written.body).toEqual({
      type: 'error',
      error: {
        type: 'server_error',
        message: 'The gateway is at its concurrency limit for this model. Retry later.',
      },
    });
  });

  it('answers a database that cannot answer with 503 + Retry-After, and a value Postgres refused with 400', async () => {
    const filter = await filterWithMessagesFormat();
    const lost = new Error('Connection terminated due to connection timeout');
    const outage = answered(filter, lost, '/admin/keys');
    expect(outage.status).toBe(503);
    expect(outage.headers['Retry-After']).toBe('1');
    expect(outage.body).toMatchObject({ error: { code: 'service_unavailable' } });
    const nul = Object.assign(new Error('invalid byte sequence'), {
      severity: 'ERROR',
      code: '22021',
    });
    const data = answered(filter, nul, '/admin/keys');
    expect(data.status).toBe(400);
    expect(data.body).toMatchObject({
      error: { code: 'invalid_parameter', message: expect.stringContaining('SQLSTATE 22021') },
    });
  });
});
