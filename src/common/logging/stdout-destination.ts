import { destination } from 'pino';

/** A log line is written at most this long after it is logged... */
export const LOG_FLUSH_INTERVAL_MS = 100;
/** ...or as soon as this many bytes of lines wait: one write for many lines under load. */
export const LOG_WRITE_MIN_BYTES = 16 * 1024;

type Destination = ReturnType<typeof destination>;

let stdout: Destination | undefined;

/**
 * The process's stdout as pino's own asynchronous destination (sonic-boom), which gathers lines
 * into batches of LOG_WRITE_MIN_BYTES and writes whatever waits every LOG_FLUSH_INTERVAL_MS: under
 * load one write carries many request lines instead of one each. pino writes what is left when
 * the process exits, which is why a stop by signal ends with an exit (app.setup.ts).
 *
 * One per process, made on first use. Undefined where process.stdout's `write` has been replaced
 * (a test capturing it): pino's default then writes through process.stdout, by the same check
 * pino makes.
 */
export function stdoutDestination(): Destination | undefined {
  const replaced = process.stdout.write !== Object.getPrototypeOf(process.stdout).write;
  if (replaced) return undefined;
  stdout ??= destination({
    dest: process.stdout.fd ?? 1,
    sync: false,
    minLength: LOG_WRITE_MIN_BYTES,
    // sonic-boom refuses a minimum that is not below its largest write (16 KiB by default).
    maxWrite: 4 * LOG_WRITE_MIN_BYTES,
    periodicFlush: LOG_FLUSH_INTERVAL_MS,
  });
  return stdout;
}

/**
 * Plain text for stdout (not a log line), after the lines logged before it: through the log
 * destination when there is one, where writing straight to stdout could overtake lines still
 * waiting for their batch. Flushed at once: the demo key is printed once, and must not wait for
 * the interval in a process that may be killed.
 */
export function writeToStdout(text: string): void {
  const stream = stdoutDestination();
  if (stream) {
    try {
      stream.write(text);
      stream.flush();
      return;
    } catch {
      // Ended (sonic-boom throws once destroyed): stdout takes the text directly.
    }
  }
  process.stdout.write(text);
}
