#!/usr/bin/env node
// `node test/bench/first-token-split.js TARGET_A [TARGET_B ...]` (docs/performance.md, "Where the
// time goes at concurrency 1"): where each target's time goes when requests come one at a time,
// split at the upstream. The fake upstream (fake-upstream.js) runs in this process, beside the
// client, so that one clock reads both sides:
//
// - before: from the client's send to the upstream having the whole request;
// - after: from the upstream's first write (its JSON answer, or a stream's headers and first
//   event) to the client's last byte (JSON) or first content event (stream);
// - total: the client's latency (JSON) or time to first token (stream).
//
// The price of the one clock: a stream's later events are written by this process too, one per
// turn of its event loop, while its client waits for the first; every target pays that alike.
//
// TARGETs as `ab.js` takes them (a floor's name or a built checkout, targets.js), on core
// BENCH_TARGET_CPU (1), this process on BENCH_LOAD_CPU (0). Rounds interleave the targets; per
// round and target, SPLIT_REQUESTS (300) JSON requests and then as many streams, each kind on one
// keep-alive connection of its own, after SPLIT_WARMUP (50) of each not counted in the first
// round. Per target and kind: the medians of the rounds' medians and the median of the rounds'
// differences to target A's, and for the total the rounds in which it was lower than A's with a
// sign test's p (process-stats.js). SPLIT_ALTERNATE=1 adds, per round and target, as many
// requests again sent alternately, a JSON request and then a stream, each kind still on its own
// connection: the kinds `json after a stream` and `stream after a JSON`, which tell what a
// request pays for the kind of answer before it from what its own kind's path costs (a stream's
// path before the upstream ran slower than a JSON request's, docs/performance.md, "Thirty-first
// pass"). A request answered other than 200, one that failed, one
// whose marks are out of order (it did not reach the upstream) and a stream without a content
// event count as errors, not as times. The new connections the client and the upstream saw are
// counted: a target that closed its connections would pay a connect per request, which a split
// would otherwise hide. Other settings: SPLIT_ROUNDS (5), BENCH_DATABASE_URL, BENCH_REDIS_URL,
// BENCH_GATEWAY_ENV (bench-gateway.js), and fake-upstream.js's UPSTREAM_LATENCY_MS (1),
// UPSTREAM_CHUNKS (50) and UPSTREAM_CHUNK_DELAY_MS (0). Output: a table on stdout and
// SPLIT_OUTPUT (first-token-split.json), with every round's figures.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Agent, buildConnector } = require('undici');
const stats = require('./process-stats');
const { createFakeUpstream } = require('./fake-upstream');
const { chatBody, chatHeaders, sendOne } = require('./requests');
const { roundOrder, startTargets, stopTargets, targetsFromArgs } = require('./targets');

const env = process.env;
const args = process.argv.slice(2);
const roots = targetsFromArgs(args, 'first-token-split.js', 1);
if (stats.reRunPinned(__filename, args, env.BENCH_LOAD_CPU ?? '0')) return;

const settings = {
  rounds: Number(env.SPLIT_ROUNDS ?? 5),
  requests: Number(env.SPLIT_REQUESTS ?? 300),
  warmup: Number(env.SPLIT_WARMUP ?? 50),
  alternate: env.SPLIT_ALTERNATE === '1',
};
const BLOCK_KINDS = ['json', 'stream'];
// What each request of an alternating pair is called: the kind of the request before it differs.
const AFTER_THE_OTHER = { json: 'json after a stream', stream: 'stream after a JSON' };
const KINDS = settings.alternate
  ? [...BLOCK_KINDS, AFTER_THE_OTHER.json, AFTER_THE_OTHER.stream]
  : BLOCK_KINDS;
const FIGURES = ['before', 'after', 'total'];

/** The fake upstream, timing each request's arrival and its answer's first write. */
function startUpstream() {
  const upstream = createFakeUpstream();
  const marks = { received: 0n, firstWrite: 0n, connections: 0 };
  upstream.on('connection', () => marks.connections++);
  // Ahead of the fake upstream's own listener, so that its end handler runs after this one.
  upstream.prependListener('request', (incoming, response) => {
    incoming.once('end', () => (marks.received = process.hrtime.bigint()));
    let written = false;
    for (const method of ['write', 'end']) {
      const original = response[method];
      response[method] = function (...chunk) {
        if (!written) marks.firstWrite = process.hrtime.bigint();
        written = true;
        return original.apply(this, chunk);
      };
    }
  });
  return new Promise((resolve) =>
    upstream.listen(0, '127.0.0.1', () =>
      resolve({ upstream, marks, url: `http://127.0.0.1:${upstream.address().port}/v1` }),
    ),
  );
}

const ms = (from, to) => Number(to - from) / 1e6;

/** One request: its split, or null when it failed or cannot be timed. */
async function timeOne(url, options, marks, stream) {
  marks.received = 0n;
  marks.firstWrite = 0n;
  const one = await sendOne(url, options, stream);
  if (one === null) return null;
  const { sent } = one;
  const reached = stream ? one.firstContent : one.ended;
  const inOrder =
    reached !== undefined &&
    sent < marks.received &&
    marks.received <= marks.firstWrite &&
    marks.firstWrite <= reached;
  if (!inOrder) return null;
  return {
    before: ms(sent, marks.received),
    after: ms(marks.firstWrite, reached),
    total: ms(sent, reached),
  };
}

/** One kind's requests to `target` on one keep-alive connection, with the split of each timed. */
function oneKind(target, marks, stream) {
  let clientConnections = 0;
  const connect = buildConnector({});
  const dispatcher = new Agent({
    connections: 1,
    connect: (options, callback) => {
      clientConnections++;
      connect(options, callback);
    },
  });
  const options = {
    method: 'POST',
    headers: chatHeaders(target.key),
    body: chatBody('bench-model', stream),
    dispatcher,
  };
  const split = { before: [], after: [], total: [] };
  let errors = 0;
  return {
    async send(counted) {
      const timed = await timeOne(`${target.base}/chat/completions`, options, marks, stream);
      if (timed === null) errors++;
      else if (counted) for (const figure of FIGURES) split[figure].push(timed[figure]);
    },
    close: () => dispatcher.close(),
    /** The split's medians, the errors and the client's connects (the upstream's: the caller's). */
    result: (upstreamConnections) => ({
      ...Object.fromEntries(FIGURES.map((figure) => [figure, stats.median(split[figure])])),
      errors,
      clientConnections,
      upstreamConnections,
    }),
  };
}

/**
 * `count` turns one at a time, each turn a request of every kind in `streams` (false: JSON, true:
 * a stream) in that order, each kind on its own connection: per kind, the split's medians, its
 * errors and connects. The upstream's connects are the turns', shared by the kinds.
 */
async function inTurn(target, marks, streams, count, skip) {
  const upstreamBefore = marks.connections;
  const kinds = streams.map((stream) => oneKind(target, marks, stream));
  try {
    for (let i = 0; i < count + skip; i++) for (const kind of kinds) await kind.send(i >= skip);
  } finally {
    await Promise.all(kinds.map((kind) => kind.close()));
  }
  const upstreamConnections = marks.connections - upstreamBefore;
  return kinds.map((kind) => kind.result(upstreamConnections));
}

/** Per target and kind: the rounds' figures summed up against target A's. */
function summarise(targets, results) {
  const rows = [];
  for (const kind of KINDS) {
    // Per figure, every target's rounds: what againstFirst compares.
    const perTarget = Object.fromEntries(
      FIGURES.map((figure) => [
        figure,
        results.map((result) => result[kind].map((r) => r[figure])),
      ]),
    );
    targets.forEach((target, index) => {
      const rounds = results[index][kind];
      const row = { target: target.name, kind, rounds };
      for (const count of ['errors', 'clientConnections', 'upstreamConnections'])
        row[count] = rounds.reduce((sum, round) => sum + round[count], 0);
      for (const figure of FIGURES) {
        const { median, differenceMedian, lowerRounds, signTestP } = stats.againstFirst(
          perTarget[figure],
          index,
        );
        row[figure] = median;
        row[`${figure}AgainstA`] = index === 0 ? null : differenceMedian;
        if (figure === 'total') Object.assign(row, { lowerRounds, signTestP });
      }
      rows.push(row);
    });
  }
  return rows;
}

function print(rows) {
  const cell = (row, figure) => {
    const against = row[`${figure}AgainstA`];
    if (against === null) return row[figure].toFixed(3);
    return `${row[figure].toFixed(3)} (${against >= 0 ? '+' : ''}${against.toFixed(3)})`;
  };
  console.log(
    `\nOne at a time, ${settings.rounds} rounds of ${settings.requests} per target and kind; medians in ms (median of the rounds' differences to A):`,
  );
  console.log(
    '| target | kind | before the upstream | after the upstream | total | total lower than A | connects client/upstream | errors |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    const lower =
      row.lowerRounds === null
        ? ''
        : `${row.lowerRounds} of ${settings.rounds} (p ${stats.formatP(row.signTestP)})`;
    console.log(
      `| ${row.target} | ${row.kind} | ${cell(row, 'before')} | ${cell(row, 'after')} | ${cell(row, 'total')} | ${lower} | ${row.clientConnections}/${row.upstreamConnections} | ${row.errors} |`,
    );
  }
}

async function main() {
  const { upstream, marks, url } = await startUpstream();
  let targets = [];
  try {
    targets = await startTargets(roots, { upstreamUrl: url, env, prefix: 'split' });
    const results = targets.map(() => Object.fromEntries(KINDS.map((kind) => [kind, []])));
    for (let round = 0; round < settings.rounds; round++) {
      const skip = round === 0 ? settings.warmup : 0;
      for (const index of roundOrder(targets.length, round)) {
        const turns = (streams) => inTurn(targets[index], marks, streams, settings.requests, skip);
        for (const kind of BLOCK_KINDS) {
          const [alone] = await turns([kind === 'stream']);
          results[index][kind].push(alone);
        }
        if (!settings.alternate) continue;
        const [json, stream] = await turns([false, true]);
        results[index][AFTER_THE_OTHER.json].push(json);
        results[index][AFTER_THE_OTHER.stream].push(stream);
      }
      console.log(`round ${round + 1}/${settings.rounds}`);
    }
    const rows = summarise(targets, results);
    print(rows);
    const output = env.SPLIT_OUTPUT ?? join(__dirname, '..', '..', 'first-token-split.json');
    writeFileSync(output, JSON.stringify({ settings, rows }, null, 2));
  } finally {
    await stopTargets(targets);
    upstream.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
