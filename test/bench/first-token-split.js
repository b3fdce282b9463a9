#!/usr/bin/env node
// `node test/bench/first-token-split.js TARGET_A TARGET_B [...]` (docs/performance.md, "Where the
// time goes at concurrency 1"): where each target's time goes when requests come one at a time,
// split at the upstream. The fake upstream (fake-upstream.js) runs in this process, beside the
// client, so that one clock reads both sides:
//
// - before: from the client's send to the upstream having the whole request;
// - after: from the upstream's first write (of an event stream) or its answer (JSON) to the
//   client's first content event (stream) or the end of the answer (JSON);
// - total: the client's time to first token (stream) or to the last byte (JSON).
//
// TARGETs as `ab.js` takes them (a floor's name or a built checkout, targets.js). Rounds
// interleave the targets; per round and target, SPLIT_REQUESTS (300) JSON requests, then as many
// streams, one at a time on one keep-alive connection, after SPLIT_WARMUP (50) of each not
// counted in the first round. Figures are medians of the rounds' medians, each target's also as
// a difference to target A's. The new connections the client and the upstream saw are counted:
// a target that does not keep its connections open pays a connect per request, which a split
// would otherwise hide. The targets run on BENCH_TARGET_CPU (1), this process on BENCH_LOAD_CPU
// (0). Environment as ab.js: SPLIT_ROUNDS (5), BENCH_DATABASE_URL, BENCH_REDIS_URL,
// UPSTREAM_LATENCY_MS (1). Output: a table on stdout and SPLIT_OUTPUT (first-token-split.json).
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Agent, buildConnector, request } = require('undici');
const stats = require('./process-stats');
const { createFakeUpstream } = require('./fake-upstream');
const { chatBody, chatHeaders } = require('./requests');
const { FLOORS } = require('./floors');
const { startTarget, targetRoot } = require('./targets');

const env = process.env;
const args = process.argv.slice(2);
if (args.length < 1) {
  console.error(
    `usage: node test/bench/first-token-split.js TARGET [TARGET ...] (a TARGET: a built checkout or one of ${Object.keys(FLOORS).join(', ')})`,
  );
  process.exit(2);
}
if (stats.reRunPinned(__filename, args, env.BENCH_LOAD_CPU ?? '0')) return;

const settings = {
  rounds: Number(env.SPLIT_ROUNDS ?? 5),
  requests: Number(env.SPLIT_REQUESTS ?? 300),
  warmup: Number(env.SPLIT_WARMUP ?? 50),
};
const FIGURES = ['before', 'after', 'total'];
const INHERITED = { ...env };
delete INHERITED.MALLOC_ARENA_MAX;

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

/** `count` requests one at a time on one connection: the medians of the split, and connects. */
async function oneAtATime(target, marks, stream, count, skip) {
  let clientConnections = 0;
  const connect = buildConnector({});
  const dispatcher = new Agent({
    connections: 1,
    connect: (options, callback) => {
      clientConnections++;
      connect(options, callback);
    },
  });
  const upstreamBefore = marks.connections;
  const url = `${target.base}/chat/completions`;
  const headers = chatHeaders(target.key);
  const body = chatBody('bench-model', stream);
  const split = { before: [], after: [], total: [] };
  let errors = 0;
  for (let i = 0; i < count + skip; i++) {
    const sent = process.hrtime.bigint();
    let first;
    const answer = await request(url, { method: 'POST', headers, body, dispatcher });
    for await (const chunk of answer.body) {
      if (first === undefined && stream && chunk.includes('"content"'))
        first = process.hrtime.bigint();
    }
    const done = process.hrtime.bigint();
    if (answer.statusCode !== 200) errors++;
    else if (i >= skip) {
      const reached = stream ? (first ?? done) : done;
      split.before.push(ms(sent, marks.received));
      split.after.push(ms(marks.firstWrite, reached));
      split.total.push(ms(sent, reached));
    }
  }
  await dispatcher.close();
  return {
    ...Object.fromEntries(FIGURES.map((figure) => [figure, stats.median(split[figure])])),
    errors,
    clientConnections,
    upstreamConnections: marks.connections - upstreamBefore,
  };
}

function report(targets, results) {
  const rows = [];
  for (const mode of ['json', 'stream']) {
    const first = results[0][mode];
    targets.forEach((target, index) => {
      const rounds = results[index][mode];
      const row = { target: target.name, mode, errors: 0, clientConnections: 0 };
      row.upstreamConnections = 0;
      for (const round of rounds) {
        row.errors += round.errors;
        row.clientConnections += round.clientConnections;
        row.upstreamConnections += round.upstreamConnections;
      }
      for (const figure of FIGURES) {
        row[figure] = stats.median(rounds.map((round) => round[figure]));
        row[`${figure}AgainstA`] = stats.median(
          rounds.map((round, r) => round[figure] - first[r][figure]),
        );
      }
      rows.push(row);
    });
  }
  const cell = (row, figure) =>
    `${row[figure].toFixed(3)}${row.target === targets[0].name ? '' : ` (${row[`${figure}AgainstA`] >= 0 ? '+' : ''}${row[`${figure}AgainstA`].toFixed(3)})`}`;
  console.log(
    `\nOne at a time, ${settings.rounds} rounds of ${settings.requests} per target and mode; medians in ms (difference to A):`,
  );
  console.log(
    '| target | mode | before the upstream | after the upstream | total | connects client/upstream | errors |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${row.target} | ${row.mode} | ${cell(row, 'before')} | ${cell(row, 'after')} | ${cell(row, 'total')} | ${row.clientConnections}/${row.upstreamConnections} | ${row.errors} |`,
    );
  return rows;
}

async function main() {
  const { upstream, marks, url } = await startUpstream();
  const targets = [];
  try {
    for (const [index, arg] of args.entries())
      targets.push(
        await startTarget(targetRoot(arg), {
          index,
          upstreamUrl: url,
          cpu: env.BENCH_TARGET_CPU ?? '1',
          inherited: INHERITED,
          env,
        }),
      );
    const results = targets.map(() => ({ json: [], stream: [] }));
    for (let round = 0; round < settings.rounds; round++) {
      const order = targets.map((_, index) => index);
      if (round % 2) order.reverse();
      const skip = round === 0 ? settings.warmup : 0;
      for (const index of order)
        for (const mode of ['json', 'stream'])
          results[index][mode].push(
            await oneAtATime(targets[index], marks, mode === 'stream', settings.requests, skip),
          );
      console.log(`round ${round + 1}/${settings.rounds}`);
    }
    const rows = report(targets, results);
    const output = env.SPLIT_OUTPUT ?? join(__dirname, '..', '..', 'first-token-split.json');
    writeFileSync(output, JSON.stringify({ settings, rows }, null, 2));
  } finally {
    for (const target of targets) target.child.kill();
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
