// The benchmarks' request (bench.js, ab.js, first-token-split.js), their load at saturation and
// their one-at-a-time latency measurement.
const { Agent, request } = require('undici');
const autocannon = require('autocannon');
const { cpuSeconds, median, percentile } = require('./process-stats');

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
 * Sends one chat completion and reads its answer to the end, with `options` as undici's request()
 * takes them: when it was sent, when its first content event arrived (a stream's first `data:`
 * line with a delta: every target relays the upstream's events, so this is the same event
 * everywhere) and when it ended; null when it failed or was not answered 200.
 */
async function sendOne(url, options, stream) {
  const sent = process.hrtime.bigint();
  let firstContent;
  try {
    const answer = await request(url, options);
    for await (const chunk of answer.body) {
      if (firstContent === undefined && stream && chunk.includes('"content"'))
        firstContent = process.hrtime.bigint();
    }
    if (answer.statusCode !== 200) return null;
  } catch {
    return null;
  }
  return { sent, firstContent, ended: process.hrtime.bigint() };
}

/**
 * `count` requests one at a time (after 20 not counted) with a plain undici client on one
 * connection: latency to the last byte (JSON) or time to the first content event (SSE), in ms,
 * of the requests answered 200; the others are counted as errors.
 * `target`: { base (…/v1), key }.
 */
async function sequential(target, stream, count) {
  const dispatcher = new Agent({ connections: 1 });
  const url = `${target.base}/chat/completions`;
  const options = {
    method: 'POST',
    headers: chatHeaders(target.key),
    body: chatBody('bench-model', stream),
    dispatcher,
  };
  const times = [];
  let errors = 0;
  for (let i = 0; i < count + 20; i++) {
    const one = await sendOne(url, options, stream);
    // A failed request is counted, not timed: an early error answer would pull the p50 down.
    if (one === null) errors++;
    else if (i >= 20) {
      const reached = stream ? (one.firstContent ?? one.ended) : one.ended;
      times.push(Number(reached - one.sent) / 1e6);
    }
  }
  await dispatcher.close();
  times.sort((a, b) => a - b);
  return { p50: median(times), p99: percentile(times, 0.99), errors };
}

/**
 * Chat completions (streams with `stream`) at `connections` for `seconds` with autocannon:
 * requests done, requests/s, latency p50 and p99 (ms), CPU time per request from the target's own
 * counters (NaN for a target without a pid, the upstream called directly) and errors (failed,
 * timed out or not 2xx). `target`: { base (…/v1), key, pid? }.
 */
function saturate(target, { stream, seconds, connections }) {
  const cpuBefore = target.pid ? cpuSeconds(target.pid) : 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${target.base}/chat/completions`,
        method: 'POST',
        headers: chatHeaders(target.key),
        body: chatBody('bench-model', stream),
        connections,
        duration: seconds,
      },
      (error, result) => {
        if (error) return reject(error);
        const done = result.requests.total;
        const cpu = target.pid ? cpuSeconds(target.pid) - cpuBefore : NaN;
        resolve({
          requests: done,
          rps: done / seconds,
          p50: result.latency.p50,
          p99: result.latency.p99,
          cpuMsPerRequest: (cpu * 1000) / Math.max(1, done),
          errors: result.errors + result.timeouts + result.non2xx,
        });
      },
    );
  });
}

module.exports = { chatBody, chatHeaders, saturate, sendOne, sequential };
