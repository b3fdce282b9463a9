#!/usr/bin/env node
// The design's floor (docs/performance.md): floor-proxy.js's work (the same express.json body
// parser, undici pool and `forward`; a JSON answer parsed and sent again, SSE piped as it comes)
// done inside the pipeline the gateway's design fixes: a NestJS controller on
// @nestjs/platform-express with one guard, one interceptor, a @Body() parameter and a
// passthrough @Res(). No key lookup, limits, logs or metrics: what separates it from
// floor-proxy.js is what Nest's request pipeline alone costs. Prints `listening <port>`.
require('reflect-metadata');
const express = require('express');
const nest = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { map } = require('rxjs');
const { forward } = require('./floor-proxy');

/** Reads the bearer token as any key guard must, and lets every request through. */
class BearerPresentGuard {
  canActivate(context) {
    return typeof context.switchToHttp().getRequest().headers.authorization === 'string';
  }
}

/** The shape of the gateway's SSE interceptor: a map over the handler's result. */
class PassThroughInterceptor {
  intercept(_context, next) {
    return next.handle().pipe(map((result) => result));
  }
}

class ProxyController {
  async create(body, response) {
    const answer = await forward('/chat/completions', body);
    response.status(answer.statusCode);
    response.setHeader('content-type', answer.headers['content-type'] ?? 'application/json');
    if (body.stream) return new nest.StreamableFile(answer.body);
    const chunks = [];
    for await (const chunk of answer.body) chunks.push(chunk);
    // Nest sends an object as JSON: parsed and serialised again, as a gateway that rewrites the
    // answer's id and model must.
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  }
}
// Decorators applied by hand: this file runs without a TypeScript build.
const create = Object.getOwnPropertyDescriptor(ProxyController.prototype, 'create');
Reflect.decorate(
  [
    nest.Post('chat/completions'),
    nest.HttpCode(200),
    nest.UseGuards(BearerPresentGuard),
    nest.UseInterceptors(PassThroughInterceptor),
  ],
  ProxyController.prototype,
  'create',
  create,
);
nest.Body()(ProxyController.prototype, 'create', 0);
nest.Res({ passthrough: true })(ProxyController.prototype, 'create', 1);
nest.Controller('v1')(ProxyController);

class ProxyModule {}
nest.Module({ controllers: [ProxyController] })(ProxyModule);

async function main() {
  const options = { bodyParser: false, logger: false };
  const app = await NestFactory.create(ProxyModule, options);
  app.use(express.json({ limit: '1mb' }));
  const http = app.getHttpAdapter().getInstance();
  http.disable('x-powered-by');
  http.set('etag', false);
  await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  const server = app.getHttpServer();
  server.keepAliveTimeout = 60_000;
  process.stdout.write(`listening ${server.address().port}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
