#!/usr/bin/env node
// The benchmark's floor (docs/performance.md): the least a gateway of this design can do, a plain
// Express app with undici. It parses the JSON body (any gateway must read `model`), sends it on to
// UPSTREAM_URL over a keep-alive undici pool, and relays the answer, JSON or SSE, as it comes;
// chat completions and embeddings alike. No auth, limits, logs or metrics. Prints
// `listening <port>` when ready. nest-floor-proxy.js sends its requests with `forward` too.
const { createServer } = require('node:http');
const express = require('express');
const { Pool } = require('undici');

const upstream = new URL(process.env.UPSTREAM_URL);
const pool = new Pool(upstream.origin, { connections: 2048, pipelining: 1 });
const base = upstream.pathname.replace(/\/$/, '');

/** Sends `body` on to the upstream's `path` (the part after /v1). */
const forward = (path, body) =>
  pool.request({
    method: 'POST',
    path: `${base}${path}`,
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body: JSON.stringify(body),
  });

function listen() {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: '1mb' }));
  app.post(['/v1/chat/completions', '/v1/embeddings'], async (req, res) => {
    try {
      const answer = await forward(req.path.slice('/v1'.length), req.body);
      res.status(answer.statusCode);
      res.setHeader('content-type', answer.headers['content-type'] ?? 'application/json');
      for await (const chunk of answer.body) res.write(chunk);
      res.end();
    } catch (error) {
      if (!res.headersSent) res.status(502).json({ error: { message: String(error) } });
      else res.destroy();
    }
  });
  const server = createServer(app);
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
    process.stdout.write(`listening ${server.address().port}\n`),
  );
  server.keepAliveTimeout = 60_000;
}

module.exports = { forward };

if (require.main === module) listen();
