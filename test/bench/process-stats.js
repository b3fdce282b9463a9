// Helpers the benchmarks share: the median they report and a process's memory as Linux counts it.
const { readFileSync } = require('node:fs');

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

module.exports = { sleep, median, memory };
