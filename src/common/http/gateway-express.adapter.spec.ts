import { Controller, HttpCode, INestApplication, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import type { SseEncoder } from '../sse/sse-encoder';
import { SseStream } from '../sse/sse-stream';
import { GatewayExpressAdapter } from './gateway-express.adapter';

const ANSWER = { id: 'chatcmpl_1', content: 'naïve café — 日本語 ✓' };

async function* chunks(): AsyncGenerator<readonly unknown[], void> {
  yield [{ n: 1 }, { n: 2 }];
  yield [{ n: 3 }];
}

const encoder: SseEncoder<unknown, void> = {
  encode: (batch) => batch.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''),
  end: () => 'data: [DONE]\n\n',
  error: () => 'data: {"error":{}}\n\n',
  heartbeat: ': keep-alive\n\n',
};

@Controller()
class AnswersController {
  @Post('answer')
  @HttpCode(200)
  answer() {
    return ANSWER;
  }

  @Post('events')
  @HttpCode(200)
  events() {
    return new SseStream(chunks(), encoder, { heartbeatMs: 0, stallTimeoutMs: 0 });
  }
}

describe('GatewayExpressAdapter', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [AnswersController],
    }).compile();
    app = moduleRef.createNestApplication(new GatewayExpressAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(() => app.close());

  it("sends an object through Express's own res.json()", async () => {
    const express = app.getHttpAdapter().getInstance() as Express;
    const json = jest.spyOn(express.response, 'json');
    try {
      const answer = await fetch(`${url}/answer`, { method: 'POST' });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await answer.json()).toEqual(ANSWER);
      expect(json).toHaveBeenCalledTimes(1);
    } finally {
      json.mockRestore();
    }
  });

  it('lets an event stream write itself to the response', async () => {
    const answer = await fetch(`${url}/events`, { method: 'POST' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await answer.text()).toBe(
      'data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\ndata: [DONE]\n\n',
    );
  });
});
