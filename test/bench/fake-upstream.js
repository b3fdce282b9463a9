#!/usr/bin/env node
// A fake OpenAI-format upstream for the benchmark (docs/performance.md): POST .../chat/completions
// answers after UPSTREAM_LATENCY_MS, in JSON or, when the body asks for `stream`, as SSE with
// UPSTREAM_CHUNKS content events UPSTREAM_CHUNK_DELAY_MS apart (0: one event per event-loop turn).
// A request whose model ends in `-hold` streams UPSTREAM_HOLD_CHUNKS events UPSTREAM_HOLD_DELAY_MS
// apart: the long streams of the concurrent-streams run. Prints `listening <port>` when ready.
const { spawn } = require('node:child_process');
const { createServer } = require('node:http');

const LATENCY_MS = Number(process.env.UPSTREAM_LATENCY_MS ?? 1);
const CHUNKS = Number(process.env.UPSTREAM_CHUNKS ?? 50);
const CHUNK_DELAY_MS = Number(process.env.UPSTREAM_CHUNK_DELAY_MS ?? 0);
const HOLD_CHUNKS = Number(process.env.UPSTREAM_HOLD_CHUNKS ?? 20);
const HOLD_DELAY_MS = Number(process.env.UPSTREAM_HOLD_DELAY_MS ?? 100);

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1700000000,
  model: 'bench-model',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Benchmark answer of a typical short length.' },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
});

const event = (fields) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'bench-model', ...fields })}\n\n`;
const FIRST = event({
  choices: [{ index: 0, delta: { role: 'assistant', content: 'word ' }, finish_reason: null }],
});
const NEXT = event({ choices: [{ index: 0, delta: { content: 'word ' }, finish_reason: null }] });
const STOP = event({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
const usage = (n) =>
  event({ choices: [], usage: { prompt_tokens: 12, completion_tokens: n, total_tokens: 12 + n } });

const pause = (ms) =>
  new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));

async function stream(response, chunks, delayMs) {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (let i = 0; i < chunks; i++) {
    if (i > 0) await pause(delayMs);
    if (response.destroyed) return;
    response.write(i === 0 ? FIRST : NEXT);
  }
  response.write(STOP);
  response.write(usage(chunks));
  response.end('data: [DONE]\n\n');
}

/**
 * The fake upstream as a server not yet listening; `chunks`/`chunkDelayMs` shape streamed answers,
 * `hold*` those of `-hold` models. Also used in-process by gateway-vs-direct.js.
 */
function createFakeUpstream({
  latencyMs = LATENCY_MS,
  chunks = CHUNKS,
  chunkDelayMs = CHUNK_DELAY_MS,
  holdChunks = HOLD_CHUNKS,
  holdDelayMs = HOLD_DELAY_MS,
} = {}) {
  const server = createServer((request, response) => {
    const body = [];
    request.on('data', (data) => body.push(data));
    request.on('end', () =>
      setTimeout(() => {
        let parsed = {};
        try {
          parsed = JSON.parse(Buffer.concat(body).toString() || '{}');
        } catch {
          // answered like any other request: the benchmark only sends valid JSON
        }
        if (parsed.stream) {
          const hold = typeof parsed.model === 'string' && parsed.model.endsWith('-hold');
          return void stream(
            response,
            hold ? holdChunks : chunks,
            hold ? holdDelayMs : chunkDelayMs,
          );
        }
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(COMPLETION),
        });
        response.end(COMPLETION);
      }, latencyMs),
    );
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

/**
 * The fake upstream in a process of its own (the benchmarks run it on the load's core, which they
 * are pinned to), with `settings` (UPSTREAM_* variables) over the caller's environment:
 * { child, pid, port, url (…/v1) } once it listens.
 */
async function spawnFakeUpstream(settings) {
  // Here rather than at the top: the upstream's own process has no use for process-stats.
  const { listeningPort } = require('./process-stats');
  const child = spawn(process.execPath, [__filename], {
    env: { ...process.env, ...settings },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await listeningPort(child, 'fake upstream');
  return { child, pid: child.pid, port, url: `http://127.0.0.1:${port}/v1` };
}

module.exports = { createFakeUpstream, spawnFakeUpstream };

if (require.main === module) {
  const server = createFakeUpstream();
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
    process.stdout.write(`listening ${server.address().port}\n`),
  );
}
