import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One test run's scratch space. Everything a run writes to the temp folder (its own folders,
 * PGlite data, built copies, the gateways it spawns) goes to `<tmp>/gateway-test-run-<pid>-XXXXXX`,
 * because TMPDIR points there for the run and every process it starts; the folder goes when the
 * run ends, whether its tests passed or not. A run that was killed leaves its folder, database and
 * Redis keys behind: each carries the pid of the jest process that made it, and the next run
 * removes those whose process is gone, never those of a run still going.
 */
const RUN_DIR_PREFIX = 'gateway-test-run-';

/** The pid of this run's jest process, which names everything the run creates. */
export function runPid(): number {
  return Number(process.env.TEST_RUN_PID ?? process.pid);
}

/** Whether a process with this pid is still running (EPERM: it is, as another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Opens the run's scratch folder (once per run), after removing those of runs that died. */
export function openRunScope(): void {
  if (process.env.TEST_RUN_DIR) return;
  const base = tmpdir();
  for (const name of readdirSync(base)) {
    const pid = new RegExp(`^${RUN_DIR_PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid && !isAlive(Number(pid))) rmSync(join(base, name), { recursive: true, force: true });
  }
  const dir = mkdtempSync(join(base, `${RUN_DIR_PREFIX}${process.pid}-`));
  process.env.TEST_RUN_PID = String(process.pid);
  process.env.TEST_RUN_DIR = dir;
  process.env.TEST_RUN_TMPDIR = process.env.TMPDIR ?? '';
  process.env.TMPDIR = dir;
}

/** Removes the run's scratch folder and gives TMPDIR back. */
export function closeRunScope(): void {
  const dir = process.env.TEST_RUN_DIR;
  if (!dir) return;
  rmSync(dir, { recursive: true, force: true });
  if (process.env.TEST_RUN_TMPDIR) process.env.TMPDIR = process.env.TEST_RUN_TMPDIR;
  else delete process.env.TMPDIR;
  delete process.env.TEST_RUN_DIR;
  delete process.env.TEST_RUN_TMPDIR;
}
