// The benchmarks' request (bench.js, ab.js) and their one-at-a-time latency measurement.
const { Agent, request } = require('undici');
const { median, percentile } = require('./process-stats');

/** A short chat completion, as every benchmark sends it. */
const chatBody = (model, stream) =>
  JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'Say something short.' }],
    max_tokens: 64,
    stream,
  });

/** The headers of a benchmark's chat completion with virtual key `key`. */
const chatHeaders = (key) => ({
  'content-type': 'application/json',
  authorization: `Bearer ${key}`,
});

/**
 * `count` requests one at a time (after 20 not counted) with a plain undici client on one
 * connection: latency to the last byte (JSON) or time to the first content event (SSE), in ms,
 * of the requests answered 200; the others are counted as errors.
 * `target`: { base (…/v1), key }.
 */
async function sequential(target, stream, count) {
  const dispatcher = new Agent({ connections: 1 });
  const url = `${target.base}/chat/completions`;
  const headers = chatHeaders(target.key);
  const body = chatBody('bench-model', stream);
  const times = [];
  let errors = 0;
  for (let i = 0; i < count + 20; i++) {
    const start = process.hrtime.bigint();
    let first;
    let failed;
    try {
      const answer = await request(url, { method: 'POST', headers, body, dispatcher });
      failed = answer.statusCode !== 200;
      for await (const chunk of answer.body) {
        // The first content event: the first `data:` line with a delta (every target sends the
        // upstream's events, so this is the same event everywhere).
        if (first === undefined && stream && chunk.includes('"content"'))
          first = process.hrtime.bigint();
      }
    } catch {
      failed = true;
    }
    const end = process.hrtime.bigint();
    // A failed request is counted, not timed: an early error answer would pull the p50 down.
    if (failed) errors++;
    else if (i >= 20) times.push(Number((stream ? (first ?? end) : end) - start) / 1e6);
  }
  await dispatcher.close();
  times.sort((a, b) => a - b);
  return { p50: median(times), p99: percentile(times, 0.99), errors };
}

module.exports = { chatBody, chatHeaders, sequential };
