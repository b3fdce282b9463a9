import { Body, Controller, HttpCode, INestApplication, Post, Req, Res } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Express, Request, Response } from 'express';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  expressMessageClasses,
  StablePrototypeExpressAdapter,
} from './stable-prototype-express.adapter';

@Controller()
class EchoController {
  @Post('echo')
  @HttpCode(201)
  echo(
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    response.setHeader('x-path', request.path);
    return { body, method: request.method, header: request.get('x-probe') ?? null };
  }
}

describe('StablePrototypeExpressAdapter', () => {
  let app: INestApplication;
  let express: Express;
  let url: string;
  /** The prototypes of each request and response as the server emitted them, before Express ran. */
  const seen: Array<{ request: object | null; response: object | null }> = [];

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [EchoController] }).compile();
    app = moduleRef.createNestApplication(new StablePrototypeExpressAdapter(), { logger: false });
    express = app.getHttpAdapter().getInstance() as Express;
    (app.getHttpServer() as Server).prependListener('request', (request, response) =>
      seen.push({
        request: Object.getPrototypeOf(request),
        response: Object.getPrototypeOf(response),
      }),
    );
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(() => app.close());

  it("builds every request and response on Express's own prototypes, before Express sees them", async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-probe': `probe-${i}` },
        body: JSON.stringify({ n: i }),
      });
      expect(answer.status).toBe(201);
      expect(answer.headers.get('x-path')).toBe('/echo');
      // Express's request and response methods (req.get, req.path, res.json) work as before.
      expect(await answer.json()).toEqual({ body: { n: i }, method: 'POST', header: `probe-${i}` });
    }
    expect(seen).toHaveLength(3);
    for (const prototypes of seen) {
      // Nest's stock adapter hands the server Node's own classes: Express then re-points both.
      expect(prototypes.request).toBe(express.request);
      expect(prototypes.response).toBe(express.response);
    }
  });

  it('answers a route Express does not know with its 404', async () => {
    const answer = await fetch(`${url}/missing`);
    expect(answer.status).toBe(404);
  });

  it('refuses the server options it does not implement', () => {
    for (const options of [{ httpsOptions: {} }, { forceCloseConnections: true }]) {
      expect(() => new StablePrototypeExpressAdapter().initHttpServer(options)).toThrow(
        /supports neither httpsOptions nor forceCloseConnections/,
      );
    }
  });
});

describe('expressMessageClasses', () => {
  it("makes Node's messages with the given prototypes, still Node's messages", () => {
    const requestPrototype = Object.create(IncomingMessage.prototype);
    const responsePrototype = Object.create(ServerResponse.prototype);
    const classes = expressMessageClasses({
      request: requestPrototype,
      response: responsePrototype,
    });
    const request = new classes.IncomingMessage(null as never);
    const response = new classes.ServerResponse(request);
    expect(Object.getPrototypeOf(request)).toBe(requestPrototype);
    expect(Object.getPrototypeOf(response)).toBe(responsePrototype);
    expect(request).toBeInstanceOf(IncomingMessage);
    expect(response).toBeInstanceOf(ServerResponse);
    expect(response.req).toBe(request);
    expect(response.statusCode).toBe(200);
  });
});
