// Helpers the benchmarks share: medians and paired statistics, a process's memory and CPU time as
// Linux counts them, ports, starting and stopping target processes, and the machine line.
const { execFileSync, spawn } = require('node:child_process');
const { readFileSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const os = require('node:os');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The middle value, or the mean of the middle two for an even count; missing values ignored. */
const median = (values) => {
  const sorted = values.filter((v) => v !== undefined && !Number.isNaN(v)).sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The value at fraction `p` (0-1) of an ascending array, by the nearest rank below. */
const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** VmRSS and VmHWM (peak) of a process, in MiB, from /proc/<pid>/status. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU seconds (user + system) the process has used so far, from its own counters. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** A loopback port nothing listens on (the OS's pick, just released). */
async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The port in the `listening <port>` line a started script prints; rejects if it exits first. */
function listeningPort(child, what) {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (data) => {
      output += data;
      const port = /listening (\d+)/.exec(output)?.[1];
      if (port) resolve(Number(port));
    });
    child.on('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

/** Whether `url` answers 2xx yet; false while nothing listens there. */
async function answers(url) {
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Runs `script` again pinned to the load's core, off the targets': true in the parent, which waits. */
function reRunPinned(script, args, loadCpu) {
  if (process.env.BENCH_PINNED) return false;
  const child = spawn('taskset', ['-c', loadCpu, process.execPath, script, ...args], {
    env: { ...process.env, BENCH_PINNED: '1' },
    stdio: 'inherit',
  });
  child.on('exit', (code) => process.exit(code ?? 1));
  return true;
}

/** Sends `signal` to `child` and resolves once it has exited (SIGKILL after `graceMs`). */
function stopChild(child, signal = 'SIGTERM', graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(signal);
  });
}

/** Removes a gateway's folder once it was stopped; a failed one keeps it (BENCH_KEEP_DIRS=1: all). */
function removeFolderOnStop(child, dir, started = () => true) {
  child.once('exit', (code, signal) => {
    const stopped = code === 0 || signal === 'SIGTERM' || signal === 'SIGKILL';
    if (stopped && started() && !process.env.BENCH_KEEP_DIRS)
      rmSync(dir, { recursive: true, force: true });
  });
}

/** Two-sided sign test: how likely `lower` of `rounds` (or a split more uneven) is by chance. */
function signTestP(lower, rounds) {
  const atLeast = Math.max(lower, rounds - lower);
  let tail = 0;
  let term = 0.5 ** rounds; // P(X = 0), then P(X = k) by the binomial recurrence
  for (let k = 0; k <= rounds; k++) {
    if (k > 0) term *= (rounds - k + 1) / k;
    if (k >= atLeast) tail += term;
  }
  return Math.min(1, 2 * tail);
}

/** A sign test's p as printed: three decimals, or `< 0.001`. */
const formatP = (p) => (p < 0.001 ? '< 0.001' : p.toFixed(3));

/** Target `index`'s per-round figures less the first target's: medians, lower rounds, sign test. */
function againstFirst(perTarget, index) {
  const differences = perTarget[index].map((value, round) => value - perTarget[0][round]);
  const lower = differences.filter((d) => d < 0).length;
  return {
    median: median(perTarget[index]),
    differenceMedian: index === 0 ? 0 : median(differences),
    lowerRounds: index === 0 ? null : lower,
    signTestP: index === 0 ? null : signTestP(lower, differences.length),
  };
}

/** Target `index`'s per-round figures over the first target's: median ratio, IQR, cheaper rounds, p. */
function ratioToFirst(perTarget, index) {
  const ratios = perTarget[index]
    .map((value, round) => value / perTarget[0][round])
    .sort((a, b) => a - b);
  const cheaper = ratios.filter((r) => r < 1).length;
  return {
    median: median(perTarget[index]),
    ratioMedian: index === 0 ? 1 : median(ratios),
    ratioIqr: index === 0 ? null : [percentile(ratios, 0.25), percentile(ratios, 0.75)],
    cheaperRounds: index === 0 ? null : cheaper,
    signTestP: index === 0 ? null : signTestP(cheaper, ratios.length),
  };
}

/** What the figures ran on: CPU model and cores, kernel, Node.js, load average. */
function machineLine() {
  const cpus = os.cpus();
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return `${cpus[0]?.model ?? 'unknown CPU'} x ${cpus.length}, Linux ${os.release()}, Node.js ${process.version}, load average ${load}`;
}

module.exports = {
  againstFirst,
  answers,
  closedPort,
  cpuSeconds,
  formatP,
  listeningPort,
  machineLine,
  median,
  memory,
  ratioToFirst,
  removeFolderOnStop,
  reRunPinned,
  sleep,
  stopChild,
};
