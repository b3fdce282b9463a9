#!/usr/bin/env node
// A fake OpenAI-format upstream for the benchmarks (docs/performance.md): POST .../chat/completions
// answers after BENCH_UPSTREAM_LATENCY_MS (1), in JSON or, when the body asks for `stream`, as SSE
// with BENCH_STREAM_CHUNKS (50) content events BENCH_STREAM_DELAY_MS (0: one per event-loop turn)
// apart. A model ending in `-hold` streams BENCH_HOLD_CHUNKS (20) events BENCH_HOLD_DELAY_MS (100)
// apart: the held streams. POST .../embeddings answers one vector of BENCH_EMBEDDING_DIMENSIONS
// (1536) floats per input. Prints `listening <port>` when ready.
const { spawn } = require('node:child_process');
const { createServer } = require('node:http');

const setting = (name, fallback) => Number(process.env[name] ?? fallback);
const LATENCY_MS = setting('BENCH_UPSTREAM_LATENCY_MS', 1);
const CHUNKS = setting('BENCH_STREAM_CHUNKS', 50);
const CHUNK_DELAY_MS = setting('BENCH_STREAM_DELAY_MS', 0);
const HOLD_CHUNKS = setting('BENCH_HOLD_CHUNKS', 20);
const HOLD_DELAY_MS = setting('BENCH_HOLD_DELAY_MS', 100);
const DIMENSIONS = setting('BENCH_EMBEDDING_DIMENSIONS', 1536);

// The answer as OpenAI sends it, one short message.
const COMPLETION =
  '{"id":"chatcmpl-bench","object":"chat.completion","created":1700000000,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":"Benchmark answer of a typical short length."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":9,"total_tokens":21}}';

const event = (fields) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'bench-model', ...fields })}\n\n`;
const FIRST = event({
  choices: [{ index: 0, delta: { role: 'assistant', content: 'word ' }, finish_reason: null }],
});
const NEXT = event({ choices: [{ index: 0, delta: { content: 'word ' }, finish_reason: null }] });
const STOP = event({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
const usage = (n) =>
  event({ choices: [], usage: { prompt_tokens: 12, completion_tokens: n, total_tokens: 12 + n } });

// A vector as OpenAI writes one (about ten significant digits), the same for every input.
const VECTOR = `[${Array.from({ length: DIMENSIONS }, (_, i) => (Math.sin(i + 1) / 25).toPrecision(10))}]`;
const embeddingLists = {};
/** OpenAI's answer to `count` inputs, written once per count. */
const embeddingList = (count) =>
  (embeddingLists[count] ??=
    `{"object":"list","data":[${Array.from({ length: count }, (_, index) => `{"object":"embedding","index":${index},"embedding":${VECTOR}}`)}],"model":"bench-embed","usage":{"prompt_tokens":${count},"total_tokens":${count}}}`);

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

function listen() {
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
            hold ? HOLD_CHUNKS : CHUNKS,
            hold ? HOLD_DELAY_MS : CHUNK_DELAY_MS,
          );
        }
        const answer = request.url.endsWith('/embeddings')
          ? embeddingList([].concat(parsed.input).length)
          : COMPLETION;
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(answer),
        });
        response.end(answer);
      }, LATENCY_MS),
    );
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
    process.stdout.write(`listening ${server.address().port}\n`),
  );
}

/** The fake upstream in a process of its own, on the benchmark's (load) core: { child, url }. */
async function spawnFakeUpstream() {
  const { listeningPort } = require('./process-stats');
  const child = spawn(process.execPath, [__filename], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await listeningPort(child, 'fake upstream');
  return { child, url: `http://127.0.0.1:${port}/v1` };
}

module.exports = { spawnFakeUpstream };

if (require.main === module) listen();
