import { Body, Controller, HttpCode, INestApplication, Post, Req, Res } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Express, Request, Response } from 'express';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  installExpressMessageClasses,
  StablePrototypeExpressAdapter,
} from './stable-prototype-express.adapter';

/** The prototypes of each request and response as the handler gets them, after Express ran. */
const handled: Array<{ request: object | null; response: object | null }> = [];

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
    handled.push({
      request: Object.getPrototypeOf(request),
      response: Object.getPrototypeOf(response),
    });
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
    // Express's own re-pointing changed nothing: the objects keep the prototype they were built
    // on. An Express that used other prototypes would fail here, and the adapter would only cost.
    expect(handled).toEqual(seen);
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

describe('installExpressMessageClasses', () => {
  it("makes Node's messages on prototypes that become Express's own and inherit from them", () => {
    const request = Object.create(IncomingMessage.prototype, { app: { value: 'app' } });
    const response = Object.create(ServerResponse.prototype, { app: { value: 'app' } });
    const app = { request, response };
    const classes = installExpressMessageClasses(app);
    expect(app.request).toBe(classes.IncomingMessage.prototype);
    expect(app.response).toBe(classes.ServerResponse.prototype);
    expect(Object.getPrototypeOf(app.request)).toBe(request);
    expect(Object.getPrototypeOf(app.response)).toBe(response);
    const incoming = new classes.IncomingMessage(null as never);
    const outgoing = new classes.ServerResponse(incoming);
    expect(Object.getPrototypeOf(incoming)).toBe(app.request);
    expect(Object.getPrototypeOf(outgoing)).toBe(app.response);
    expect(incoming).toBeInstanceOf(IncomingMessage);
    expect(outgoing).toBeInstanceOf(ServerResponse);
    expect((incoming as unknown as { app: string }).app).toBe('app');
    expect(outgoing.req).toBe(incoming);
    expect(outgoing.statusCode).toBe(200);
  });
});
