// The benchmarks' request, their load at saturation, their one-at-a-time latency, and the paired
// rounds that `npm run bench` and `npm run bench:ab` compare targets in (docs/performance.md).
const { Agent, request } = require('undici');
const autocannon = require('autocannon');
const { cpuSeconds, median } = require('./process-stats');

/** A short chat completion, as every benchmark sends it. */
const chatBody = (model, stream) =>
  JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'Say something short.' }],
    max_tokens: 64,
    stream,
  });

const TEXTS = Array.from({ length: 100 }, (_, i) => `Sentence ${i} of a document, to embed.`);

/** Other requests than a chat completion: a target spread from one sends its body to its path. */
const ROUTES = {
  /** The same request on /v1/responses, stored (the default); a stream timed to its first delta. */
  responses: {
    path: '/responses',
    firstContent: 'output_text.delta',
    body: (model, stream) =>
      JSON.stringify({ model, input: 'Say something short.', max_output_tokens: 64, stream }),
  },
  /**
   * 100 texts, in floats as the gateway asks its upstream (it encodes base64 itself); no stream.
   * An answer of 2.2 MB costs tens of ms: at concurrency 32 a round would end with most requests
   * still running, their CPU counted and they not (docs/performance.md).
   */
  embeddings: {
    path: '/embeddings',
    shapes: [false],
    load: { connections: 2, roundS: 3 },
    body: () => JSON.stringify({ model: 'bench-embed', input: TEXTS, encoding_format: 'float' }),
  },
};

/**
 * What a target is sent: its URL, and undici's or autocannon's method, headers and body. `target`:
 * { base (…/v1), key, path (default /chat/completions), body (default chatBody) }.
 */
function requestOf(target, stream, model = 'bench-model') {
  const url = `${target.base}${target.path ?? '/chat/completions'}`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${target.key}` };
  return { url, method: 'POST', headers, body: (target.body ?? chatBody)(model, stream) };
}

/**
 * Sends one chat completion and reads its answer to the end: when it was sent, when its first
 * content event arrived (every target relays the upstream's events, so this is the same event
 * everywhere) and when it ended; null when it failed or was not answered 200.
 */
async function sendOne(url, options, stream, marker = '"content"') {
  const sent = process.hrtime.bigint();
  let firstContent;
  try {
    const answer = await request(url, options);
    for await (const chunk of answer.body) {
      if (firstContent === undefined && stream && chunk.includes(marker))
        firstContent = process.hrtime.bigint();
    }
    if (answer.statusCode !== 200) return null;
  } catch {
    return null;
  }
  return { sent, firstContent, ended: process.hrtime.bigint() };
}

/**
 * `count` requests one at a time (after 20 not counted) on one connection: latency to the last
 * byte (JSON) or to the first content event (SSE), in ms; a request not answered 200 is counted
 * as an error, not timed. `target`: requestOf's, and firstContent (the text that marks a stream's
 * first content).
 */
async function sequential(target, stream, count) {
  const { url, ...sent } = requestOf(target, stream);
  const options = { ...sent, dispatcher: new Agent({ connections: 1 }) };
  const times = [];
  let errors = 0;
  for (let i = 0; i < count + 20; i++) {
    const one = await sendOne(url, options, stream, target.firstContent);
    if (one === null) errors++;
    else if (i >= 20) {
      const reached = stream ? (one.firstContent ?? one.ended) : one.ended;
      times.push(Number(reached - one.sent) / 1e6);
    }
  }
  await options.dispatcher.close();
  return { p50: median(times), requests: count + 20, errors };
}

/**
 * Chat completions (streams with `stream`) at `connections` for `seconds` with autocannon:
 * requests done, requests/s, latency p50 and p99 (ms), CPU time per request from the target's own
 * counters, and errors (failed, timed out or not 2xx). `target`: requestOf's, and its pid.
 */
function saturate(target, { stream, seconds, connections }) {
  const cpuBefore = cpuSeconds(target.pid);
  return new Promise((resolve, reject) => {
    autocannon(
      { ...requestOf(target, stream), connections, duration: seconds },
      (error, result) => {
        if (error) return reject(error);
        const done = result.requests.total;
        resolve({
          requests: done,
          rps: done / seconds,
          p50: result.latency.p50,
          p99: result.latency.p99,
          cpuMsPerRequest: ((cpuSeconds(target.pid) - cpuBefore) * 1000) / Math.max(1, done),
          errors: result.errors + result.timeouts + result.non2xx,
        });
      },
    );
  });
}

/**
 * Paired rounds: every target in turn, in an order that alternates from round to round, `warmS`
 * seconds of unrecorded load (0: none), `roundS` measured at `connections`, then `sequential`
 * requests one at a time (0: none), so each target gets one figure per round, taken seconds from
 * the others' on a VM whose speed drifts between minutes. With `direct` (the upstream itself),
 * each round first times it one request at a time, for the latency the targets add.
 * Per target, one entry per round: cpu (ms per request), rps, p99 under load, p50 one at a time
 * (time to first token with `stream`); and its errors, sequentialErrors and requests served.
 */
async function runPairedRounds(targets, options) {
  const perTarget = () => targets.map(() => []);
  const zeros = () => targets.map(() => 0);
  const result = {
    cpu: perTarget(),
    rps: perTarget(),
    p99Loaded: perTarget(),
    p50: perTarget(),
    direct: [],
    errors: zeros(),
    sequentialErrors: zeros(),
    served: zeros(),
  };
  const load = (index, seconds) => {
    return saturate(targets[index], { ...options, seconds }).then((run) => {
      result.errors[index] += run.errors;
      result.served[index] += run.requests;
      return run;
    });
  };
  for (let round = 0; round < options.rounds; round++) {
    if (options.direct && options.sequential > 0)
      result.direct.push(
        (await sequential(options.direct, options.stream, options.sequential)).p50,
      );
    // The order alternates, so that no target always runs right after another.
    const order = targets.map((_, index) => index);
    for (const index of round % 2 ? order.reverse() : order) {
      if (options.warmS > 0) await load(index, options.warmS);
      const run = await load(index, options.roundS);
      result.cpu[index].push(run.cpuMsPerRequest);
      result.rps[index].push(run.rps);
      result.p99Loaded[index].push(run.p99);
      if (options.sequential > 0) {
        const latency = await sequential(targets[index], options.stream, options.sequential);
        result.p50[index].push(latency.p50);
        result.sequentialErrors[index] += latency.errors;
        result.served[index] += latency.requests;
      }
    }
    options.afterRound?.(round, result);
  }
  return result;
}

module.exports = { ROUTES, requestOf, runPairedRounds, saturate, sequential };
