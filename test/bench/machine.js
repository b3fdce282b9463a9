// What the virtual machine itself did during a run, so that a run's figures can be read against
// the day's speed (docs/performance.md, "Where it stands"): the share of a core's time the
// hypervisor gave to other guests (steal, from /proc/stat) and what a page of new memory cost
// (the kernel's first-touch fault, which on this VM ranged from about 2 to 16 us a page between
// days, "Twenty-second pass"), and the kernel's clock source. None is the gateway's doing; each
// moves every target's figures.
const { readFileSync } = require('node:fs');

const CLOCKSOURCE = '/sys/devices/system/clocksource/clocksource0/current_clocksource';
const PAGE_PROBE_BYTES = 64 * 1024 * 1024;
const PAGE_BYTES = 4096;

/** Jiffies per state of one core (`cpu1` line of /proc/stat), or of all (`cpu` '': `cpu `). */
function coreTimes(cpu) {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((row) => row.startsWith(`cpu${cpu} `));
  if (!line) return null;
  const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
}

/**
 * Starts watching core `cpu`; `stop()` answers the share of its time stolen (0-1) and the share
 * it was busy, since the start. Null where /proc/stat has no such core.
 */
function watchCore(cpu) {
  const start = coreTimes(cpu);
  return {
    stop() {
      const end = coreTimes(cpu);
      if (!start || !end) return null;
      const delta = (key) => end[key] - start[key];
      const total = delta('busy') + delta('idle') + delta('steal');
      if (total <= 0) return null;
      return { steal: delta('steal') / total, busy: delta('busy') / total };
    },
  };
}

/**
 * Microseconds per 4 KiB page to fault in new memory, the median of three 64 MiB buffers touched
 * once a page each. Measured in this process, on the load's core.
 */
function newPageMicros() {
  const perPage = [];
  for (let i = 0; i < 3; i++) {
    const started = process.hrtime.bigint();
    const buffer = Buffer.allocUnsafeSlow(PAGE_PROBE_BYTES);
    for (let offset = 0; offset < buffer.length; offset += PAGE_BYTES) buffer[offset] = 1;
    perPage.push(Number(process.hrtime.bigint() - started) / 1e3 / (PAGE_PROBE_BYTES / PAGE_BYTES));
  }
  return perPage.sort((a, b) => a - b)[1];
}

/**
 * The kernel's clock source (`tsc`, `kvm-clock`, ...), null where it cannot be read. Every
 * process reads the clock tens of times a request (the gateway about 90 times per stream, the
 * floor about 35, counted on the twenty-seventh pass's day); with `tsc` a read costs tens of
 * nanoseconds; one the vDSO cannot read (an unstable `kvm-clock`, `hpet`) costs a system call each.
 */
function clockSource() {
  try {
    return readFileSync(CLOCKSOURCE, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Watches the targets' core (all cores with '') from now; `stop()` answers the reading for the run: steal and busy
 * shares of that core, and a new page's cost at the start and at the end.
 */
function watchMachine(targetCpu = '') {
  const pageAtStart = newPageMicros();
  const core = watchCore(targetCpu);
  return {
    stop: () => ({
      targetCpu: String(targetCpu),
      clockSource: clockSource(),
      ...(core.stop() ?? { steal: null, busy: null }),
      newPageMicros: { start: pageAtStart, end: newPageMicros() },
    }),
  };
}

/** The reading as one line for a run's output. */
function describeMachine({ targetCpu, clockSource: clock, steal, busy, newPageMicros: page }) {
  const share = (value) => (value === null ? 'unknown' : `${(value * 100).toFixed(1)} %`);
  return (
    `machine: ${targetCpu === '' ? 'the CPUs' : `CPU ${targetCpu}`} stolen by the hypervisor ${share(steal)} of the run, busy ${share(busy)}; ` +
    `a new 4 KiB page ${page.start.toFixed(1)} us at the start, ${page.end.toFixed(1)} us at the end; ` +
    `clock source ${clock ?? 'unknown'}`
  );
}

module.exports = { describeMachine, watchMachine };
