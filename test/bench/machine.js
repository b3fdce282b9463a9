// What the virtual machine itself did during a run, so that a run's figures can be read against
// the day's speed (docs/performance.md, "Where it stands"): the share of a core's time the
// hypervisor gave to other guests (steal, from /proc/stat), what a page of new memory cost
// (the kernel's first-touch fault, which on this VM ranged from about 1.4 to 19 us a page between
// days, "Twenty-second pass"), what a system call cost, whether every kernel entry empties the
// TLB, the kernel's clock source, what a piece of user-mode work cost (a JSON round trip of one
// stream event, "Thirtieth pass") and the CPU's model. None is the gateway's doing; each moves
// every target's figures ("Twenty-eighth pass").
const { readFileSync } = require('node:fs');
const { median } = require('./process-stats');

const CLOCKSOURCE = '/sys/devices/system/clocksource/clocksource0/current_clocksource';
const MELTDOWN = '/sys/devices/system/cpu/vulnerabilities/meltdown';
const TRANSPARENT_HUGE_PAGES = '/sys/kernel/mm/transparent_hugepage/enabled';
const PAGE_PROBE_BYTES = 64 * 1024 * 1024;
const PAGE_BYTES = 4096;
const SYSTEM_CALL_BATCH = 20_000;
const COMPUTE_BATCH = 20_000;
// One chunk of a chat-completion stream, of the shape the gateway parses and writes per event:
// the probe's unit of work.
const COMPUTE_EVENT = JSON.stringify({
  id: 'chatcmpl_0000000000000000000000000000',
  object: 'chat.completion.chunk',
  created: 1_764_000_000,
  model: 'alpha-k3',
  choices: [{ index: 0, delta: { content: 'token ' }, finish_reason: null, logprobs: null }],
});
// A third of the fastest getppid(2) measured here from C (0.12 us, without page-table isolation,
// on the twenty-ninth pass's day): a read of `process.ppid` below it did not enter the kernel.
const LEAST_SYSTEM_CALL_MICROS = 0.04;

/** The cores of a taskset list (`1`, `0,1`, `2-3`); [''] (every core, the `cpu ` line) for ''. */
function coresOf(list) {
  if (list === '') return [''];
  return list.split(',').flatMap((part) => {
    const [from, to = from] = part.split('-').map(Number);
    return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
  });
}

/**
 * Jiffies per state of the cores in `list` (coresOf), summed from their /proc/stat lines; null
 * where a core has none. Guest time is left out: the kernel counts it in user time already.
 */
function coreTimes(list) {
  const rows = readFileSync('/proc/stat', 'utf8').split('\n');
  const sum = { busy: 0, idle: 0, steal: 0 };
  for (const cpu of coresOf(list)) {
    const line = rows.find((row) => row.startsWith(`cpu${cpu} `));
    if (!line) return null;
    const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    sum.busy += user + nice + system + irq + softirq;
    sum.idle += idle + iowait;
    sum.steal += steal;
  }
  return sum;
}

/** Microseconds that `work` took, divided among the `units` it did. */
function microsPerUnit(units, work) {
  const started = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - started) / 1e3 / units;
}

/**
 * The shares of the cores' time between two coreTimes() readings that the hypervisor stole and
 * that they were busy (0-1); null where /proc/stat had no such core or no time passed.
 */
function coreShares(start, end) {
  if (!start || !end) return { steal: null, busy: null };
  const delta = (key) => end[key] - start[key];
  const total = delta('busy') + delta('idle') + delta('steal');
  if (total <= 0) return { steal: null, busy: null };
  return { steal: delta('steal') / total, busy: delta('busy') / total };
}

/**
 * Microseconds per 4 KiB page to fault in new memory, the median of three 64 MiB buffers touched
 * once a page each. Measured in this process, on the load's core. Only the touching is timed: the
 * three are allocated first and held until all are measured, so that neither a collection the
 * new external memory sets off nor the freeing of an earlier buffer falls in a timed span.
 */
function newPageMicros() {
  const buffers = Array.from({ length: 3 }, () => Buffer.allocUnsafeSlow(PAGE_PROBE_BYTES));
  return median(
    buffers.map((buffer) =>
      microsPerUnit(PAGE_PROBE_BYTES / PAGE_BYTES, () => {
        for (let offset = 0; offset < buffer.length; offset += PAGE_BYTES) buffer[offset] = 1;
      }),
    ),
  );
}

/**
 * Microseconds per system call as a Node.js process pays it: the median of five batches of 20,000
 * reads of `process.ppid`, each a getppid(2) (Node does not cache it; strace counts one per read).
 * It includes the binding's own cost (tens of nanoseconds) and, where every kernel entry empties
 * the TLB, the refill of the probe's own pages after each call, as the gateway pays it after each
 * of its system calls.
 */
function systemCallMicros() {
  const micros = median(
    Array.from({ length: 5 }, () =>
      microsPerUnit(SYSTEM_CALL_BATCH, () => {
        for (let i = 0; i < SYSTEM_CALL_BATCH; i++) void process.ppid;
      }),
    ),
  );
  // A Node.js that cached the parent's pid would answer without a system call: no reading then,
  // rather than a figure that would make any day look fast.
  return micros < LEAST_SYSTEM_CALL_MICROS ? null : micros;
}

/**
 * Microseconds of user-mode work, without a system call in it: a JSON parse and a stringify of one
 * stream chunk, the median of `batches` (five) batches of 20,000 after one not timed (it warms
 * the loop, the caches and the young generation; the scavenges the batches set off are in their
 * time). Measured in this process, on the load's core. On the thirtieth pass's day, slow with
 * cheap system calls, it read 2.9-3.1 us, and 5.0-7.0 us once the VM slowed that afternoon.
 */
function computeMicros(batches = 5) {
  roundTrips();
  return median(Array.from({ length: batches }, () => microsPerUnit(COMPUTE_BATCH, roundTrips)));
}

function roundTrips() {
  for (let i = 0; i < COMPUTE_BATCH; i++) JSON.stringify(JSON.parse(COMPUTE_EVENT));
}

/** The CPU's model as the kernel names it (`model name` in /proc/cpuinfo); null elsewhere. */
const cpuModel = () =>
  /^model name\s*:\s*(.+)$/m.exec(kernelFile('/proc/cpuinfo') ?? '')?.[1].trim() ?? null;

/**
 * Whether a kernel entry empties the TLB: with page-table isolation (the kernel's Meltdown
 * mitigation: `pti` among the CPU's flags in /proc/cpuinfo, `Mitigation: PTI` in the sysfs
 * vulnerability file) every system call and interrupt switches page tables, and without PCID (no
 * `pcid` among the flags) each switch flushes the user pages' entries, so that a process walks its
 * page tables again for every page it touches after the call. True, false, or null where the
 * kernel lists no x86 flags (another architecture keeps its TLB by other means).
 */
function tlbFlushedOnKernelEntry() {
  const flags = /^flags\s*:(.*)$/m.exec(kernelFile('/proc/cpuinfo') ?? '')?.[1].split(/\s+/);
  if (!flags) return null;
  const isolated = flags.includes('pti') || /\bPTI\b/.test(kernelFile(MELTDOWN) ?? '');
  return isolated && !flags.includes('pcid');
}

/** A file the kernel writes (under /sys or /proc), trimmed; null where it cannot be read. */
function kernelFile(path) {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * The kernel's transparent huge page setting (`always`, `madvise`, `never`: the one in brackets);
 * with `always`, the probe's buffers may be backed by 2 MiB pages and its figure is not a 4 KiB
 * page's.
 */
const transparentHugePages = () =>
  /\[(\w+)\]/.exec(kernelFile(TRANSPARENT_HUGE_PAGES) ?? '')?.[1] ?? null;

// The kernel's clock source (`tsc`, `kvm-clock`, ...). Every process reads the clock tens of
// times a request (the gateway about 90 times per stream, the floor about 35, counted on the
// twenty-seventh pass's day); with `tsc` a read costs tens of nanoseconds; one the vDSO cannot
// read (an unstable `kvm-clock`, `hpet`) costs a system call each.
const clockSource = () => kernelFile(CLOCKSOURCE);

/**
 * Watches the targets' cores (a taskset list; every core with '') from now. `sample()`, called
 * between paired rounds while the targets are idle, adds one reading of the user-mode probe (one
 * timed batch after one not timed, about a tenth of a second): on the thirtieth pass's day the
 * VM slowed midway through runs, which readings at a run's two ends cannot show. `stop()`
 * answers the reading for the run: the share of their time stolen by the hypervisor (0-1) and the
 * share they were busy (null where /proc/stat has no such core or no time passed), a new page's,
 * a system call's and the user-mode probe's cost at the start and at the end (the system call's
 * null where the probe's reads did not enter the kernel), the probe's readings between rounds,
 * whether a kernel entry empties the TLB, the two kernel settings and the CPU's model.
 */
function watchMachine(targetCpu = '') {
  const pageAtStart = newPageMicros();
  const systemCallAtStart = systemCallMicros();
  const computeAtStart = computeMicros();
  const computeBetweenRounds = [];
  const start = coreTimes(targetCpu);
  return {
    sample() {
      computeBetweenRounds.push(computeMicros(1));
    },
    stop() {
      return {
        targetCpu: String(targetCpu),
        cpuModel: cpuModel(),
        clockSource: clockSource(),
        transparentHugePages: transparentHugePages(),
        ...coreShares(start, coreTimes(targetCpu)),
        newPageMicros: { start: pageAtStart, end: newPageMicros() },
        systemCallMicros: { start: systemCallAtStart, end: systemCallMicros() },
        computeMicros: {
          start: computeAtStart,
          end: computeMicros(),
          betweenRounds: computeBetweenRounds,
        },
        tlbFlushedOnKernelEntry: tlbFlushedOnKernelEntry(),
      };
    },
  };
}

const TLB_WORDS = {
  true: 'every kernel entry empties the TLB (page-table isolation, no PCID)',
  false: 'the TLB kept across kernel entries',
  null: 'whether a kernel entry empties the TLB unknown',
};

const callMicros = (micros) =>
  micros === null ? 'unknown (process.ppid read without one)' : `${micros.toFixed(2)} us`;

/** The reading as one line for a run's output. */
function describeMachine(reading) {
  const { targetCpu, clockSource: clock, transparentHugePages: hugePages, steal, busy } = reading;
  const page = reading.newPageMicros;
  const call = reading.systemCallMicros;
  const compute = reading.computeMicros;
  const between = compute.betweenRounds;
  const betweenRounds =
    between.length === 0
      ? ''
      : `, between rounds ${Math.min(...between).toFixed(2)}-${Math.max(...between).toFixed(2)} us (median ${median(between).toFixed(2)}, ${between.length} readings)`;
  const share = (value) => (value === null ? 'unknown' : `${(value * 100).toFixed(1)} %`);
  return (
    `machine: ${targetCpu === '' ? 'the CPUs' : `CPU ${targetCpu}`} stolen by the hypervisor ${share(steal)} of the run, busy ${share(busy)}; ` +
    `a new 4 KiB page ${page.start.toFixed(1)} us at the start, ${page.end.toFixed(1)} us at the end; ` +
    `a system call ${callMicros(call.start)} at the start, ${callMicros(call.end)} at the end; ` +
    `a JSON round trip of one event ${compute.start.toFixed(2)} us at the start, ${compute.end.toFixed(2)} us at the end${betweenRounds}; ` +
    `${TLB_WORDS[String(reading.tlbFlushedOnKernelEntry)]}; ` +
    `transparent huge pages ${hugePages ?? 'unknown'}; clock source ${clock ?? 'unknown'}; ` +
    `CPU ${reading.cpuModel ?? 'unknown'}`
  );
}

module.exports = { describeMachine, watchMachine };
