// The benchmarks' request (bench.js, ab.js) and their one-at-a-time latency measurement.
const { Agent, request } = require('undici');
const { percentile } = require('./process-stats');

/** A short chat completion, as every benchmark sends it. */
const chatBody = (model, stream) =>
  JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'Say something short.' }],
    max_tokens: 64,
    stream,
  });

/**
 * `count` requests one at a time (after 20 not counted) with a plain undici client on one
 * connection: latency to the last byte (JSON) or time to the first content event (SSE), in ms.
 * `target`: { base (…/v1), key }.
 */
async function sequential(target, stream, count) {
  const dispatcher = new Agent({ connections: 1 });
  const url = `${target.base}/chat/completions`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${target.key}` };
  const body = chatBody('bench-model', stream);
  const times = [];
  let errors = 0;
  for (let i = 0; i < count + 20; i++) {
    const start = process.hrtime.bigint();
    let first;
    try {
      const answer = await request(url, { method: 'POST', headers, body, dispatcher });
      if (answer.statusCode !== 200) errors++;
      for await (const chunk of answer.body) {
        // The first content event: the first `data:` line with a delta (every target sends the
        // upstream's events, so this is the same event everywhere).
        if (first === undefined && stream && chunk.includes('"content"'))
          first = process.hrtime.bigint();
      }
    } catch {
      errors++;
    }
    const end = process.hrtime.bigint();
    if (i >= 20) times.push(Number((stream ? (first ?? end) : end) - start) / 1e6);
  }
  await dispatcher.close();
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), errors };
}

module.exports = { chatBody, sequential };
