// Helpers the benchmarks share: the median they report, a process's memory as Linux counts it, a
// free loopback port for a target and whether a target answers yet.
const { readFileSync } = require('node:fs');
const { createServer } = require('node:net');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The middle value, or the mean of the middle two for an even count; missing values ignored. */
const median = (values) => {
  const sorted = values.filter((v) => v !== undefined && !Number.isNaN(v)).sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** VmRSS and VmHWM of a process, in MiB, from /proc/<pid>/status. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

/** A loopback port nothing listens on (the OS's pick, just released): a target's, or a dead one. */
async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
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

module.exports = { sleep, median, memory, closedPort, answers };
