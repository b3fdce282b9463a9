import {
  Controller,
  Get,
  Head,
  Header,
  HttpCode,
  INestApplication,
  Post,
  Res,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Express, Response } from 'express';
import type { AddressInfo } from 'node:net';
import { request, type Dispatcher } from 'undici';
import { GatewayExpressAdapter } from './gateway-express.adapter';
import { StablePrototypeExpressAdapter } from './stable-prototype-express.adapter';

const ANSWER = { id: 'chatcmpl_1', content: 'naïve café — 日本語 ✓', n: [1, 2.5, null], ok: true };

@Controller()
class AnswersController {
  @Post('answer')
  @HttpCode(200)
  answer() {
    return ANSWER;
  }

  @Post('created')
  created() {
    return { created: true };
  }

  @Get('list')
  list() {
    return { data: [ANSWER] };
  }

  @Get('versioned')
  @Header('ETag', '"v1"')
  versioned() {
    return { data: [ANSWER] };
  }

  @Head('list')
  head() {
    return { data: [ANSWER] };
  }

  @Post('empty')
  @HttpCode(204)
  empty() {
    return { dropped: true };
  }

  @Post('typed')
  @Header('Content-Type', 'application/vnd.custom+json')
  typed() {
    return { typed: true };
  }

  @Post('undefined-json')
  @HttpCode(200)
  undefinedJson() {
    return { toJSON: () => undefined };
  }

  @Post('text')
  @HttpCode(200)
  text() {
    return 'plain words';
  }

  @Post('array')
  @HttpCode(200)
  array() {
    return [1, 'two'];
  }

  @Post('teapot')
  teapot(@Res({ passthrough: true }) response: Response) {
    response.status(418);
    return { brewing: false };
  }
}

const POST: RequestInit = { method: 'POST' };

interface Seen {
  status: number;
  headers: Record<string, string | null>;
  body: string;
}

/**
 * What a client sees of an answer: status, the headers res.json() sets, and the exact bytes.
 * undici's request() rather than fetch(), which adds `Cache-Control: no-cache` to a conditional
 * request (the Fetch standard's cache mode), and Express then never answers 304.
 */
async function see(url: string, init: RequestInit): Promise<Seen> {
  const answer = await request(url, {
    method: init.method as Dispatcher.HttpMethod,
    headers: init.headers as Record<string, string> | undefined,
  });
  const headers: Record<string, string | null> = {};
  for (const name of ['content-type', 'content-length', 'transfer-encoding', 'etag']) {
    const value = answer.headers[name];
    headers[name] = typeof value === 'string' ? value : null;
  }
  return { status: answer.statusCode, headers, body: await answer.body.text() };
}

async function start(
  adapter: StablePrototypeExpressAdapter,
  settings: (express: Express) => void,
): Promise<{ app: INestApplication; url: string; express: Express }> {
  const moduleRef = await Test.createTestingModule({ controllers: [AnswersController] }).compile();
  const app = moduleRef.createNestApplication(adapter, { logger: false });
  const express = app.getHttpAdapter().getInstance() as Express;
  settings(express);
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  return { app, url, express };
}

describe('GatewayExpressAdapter', () => {
  // The gateway's settings (app.setup.ts): ETag off.
  const gatewaySettings = (express: Express) => express.set('etag', false);
  let gateway: Awaited<ReturnType<typeof start>>;
  let stock: Awaited<ReturnType<typeof start>>;

  beforeAll(async () => {
    gateway = await start(new GatewayExpressAdapter(), gatewaySettings);
    stock = await start(new StablePrototypeExpressAdapter(), gatewaySettings);
  });

  afterAll(async () => {
    await gateway.app.close();
    await stock.app.close();
  });

  // Three entries each: a shorter row would make jest pass its `done` callback as `init`.
  const cases: Array<[string, string, RequestInit]> = [
    ['an object', '/answer', POST],
    ['a 201 object', '/created', POST],
    ['an array', '/array', POST],
    ['a status set on the response', '/teapot', POST],
    ['a GET', '/list', { method: 'GET' }],
    // Express answers 304: the handler's ETag matches.
    ['a conditional GET', '/versioned', { method: 'GET', headers: { 'if-none-match': '"v1"' } }],
    ['a HEAD', '/list', { method: 'HEAD' }],
    ['a 204', '/empty', POST],
    ['a Content-Type set by the handler', '/typed', POST],
    ['a toJSON() that returns undefined', '/undefined-json', POST],
    ['a string', '/text', POST],
  ];

  it.each(cases)('answers %s exactly as res.json() does', async (_what, path, init) => {
    const expected = await see(`${stock.url}${path}`, init);
    expect(await see(`${gateway.url}${path}`, init)).toEqual(expected);
  });

  it('sends a plain object without res.json(), with the same header and byte count', async () => {
    const json = jest.spyOn(gateway.express.response, 'json');
    try {
      const seen = await see(`${gateway.url}/answer`, POST);
      expect(json).not.toHaveBeenCalled();
      expect(seen.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(seen.headers['content-length'])).toBe(
        Buffer.byteLength(JSON.stringify(ANSWER)),
      );
      expect(JSON.parse(seen.body)).toEqual(ANSWER);
      // Express's path for what the fast one leaves to it.
      await see(`${gateway.url}/typed`, POST);
      expect(json).toHaveBeenCalledTimes(1);
    } finally {
      json.mockRestore();
    }
  });

  it('leaves the answer to res.json() while the app has JSON or ETag settings of its own', async () => {
    const settings: Array<[string, unknown]> = [
      ['json spaces', 2],
      ['json replacer', (_key: string, value: unknown) => value],
      ['json escape', true],
      ['etag', 'strong'],
    ];
    for (const [name, value] of settings) {
      const custom = await start(new GatewayExpressAdapter(), (express) => {
        gatewaySettings(express);
        express.set(name, value);
      });
      const reference = await start(new StablePrototypeExpressAdapter(), (express) => {
        gatewaySettings(express);
        express.set(name, value);
      });
      try {
        expect(await see(`${custom.url}/answer`, POST)).toEqual(
          await see(`${reference.url}/answer`, POST),
        );
      } finally {
        await custom.app.close();
        await reference.app.close();
      }
    }
  });
});
