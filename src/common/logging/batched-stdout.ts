import { destination } from 'pino';

/**
 * JSON lines leave stdout in writes of at least this many bytes (about 40 request lines)... With
 * 4 KiB batches the writes still cost several percent of a JSON request's CPU at concurrency 32;
 * with 16 KiB batches kept as buffers, about what lines that are never written cost
 * (docs/performance.md, "Thirteenth pass").
 */
export const LOG_WRITE_MIN_BYTES = 16 * 1024;
/** ...or at most this many milliseconds after a line starts waiting, whichever comes first. */
export const LOG_FLUSH_AFTER_MS = 100;

type Destination = ReturnType<typeof destination>;

/** The destination the logger writes stdout's lines through, while it is open. */
let loggerStdout: Destination | undefined;

/**
 * Plain text for stdout (not a log line), in order with the lines logged before it: through the
 * logger's batched destination when there is one, and written at once with the lines waiting
 * before it; straight to stdout otherwise. Written directly, it could come out before lines
 * logged earlier and still waiting for their batch. With LOG_FORMAT=pretty the lines go through
 * pino-pretty's worker thread, and the text may come out before them.
 */
export function writeToStdout(text: string): void {
  if (loggerStdout) {
    try {
      loggerStdout.write(text);
      // Not left for the batch's timer: a process killed within the delay would lose it (the
      // demo key is printed once). With a write in flight flush() leaves it to the timer.
      loggerStdout.flush();
      return;
    } catch {
      // Destroyed and not yet closed: sonic-boom throws from write(); stdout takes it directly.
    }
  }
  process.stdout.write(text);
}

/**
 * stdout as pino's own destination (sonic-boom on file descriptor 1, asynchronous), writing the
 * lines of a busy moment together: pino's default writes each line with its own `fs.write` as
 * soon as the previous one completes, a thread-pool round trip and a callback per request under
 * load (docs/performance.md, "Thirteenth pass").
 *
 * A line waits at most LOG_FLUSH_AFTER_MS, by a timer that runs only while lines wait
 * (flushWaitingLines). pino writes what is buffered when the process exits
 * (node_modules/pino/lib/tools.js, `autoEnd`), which is why a stop by signal ends with an exit
 * (app.setup.ts); only a SIGKILL loses lines, the last LOG_FLUSH_AFTER_MS of them at most.
 *
 * Undefined, and pino's default kept, where stdout's `write` has been replaced (a test that
 * captures it): pino then writes through `process.stdout` itself, by the same check
 * (`hasBeenTampered` in the same file).
 */
export function batchedStdout(
  stdout: { fd?: number; write: unknown } = process.stdout,
  flushAfterMs = LOG_FLUSH_AFTER_MS,
): Destination | undefined {
  const tampered = stdout.write !== (stdout.constructor.prototype as typeof stdout).write;
  if (tampered) return undefined;
  const stream = destination({
    dest: stdout.fd || 1,
    sync: false,
    minLength: LOG_WRITE_MIN_BYTES,
    // sonic-boom's largest write is 16 KiB by default, and it refuses a minimum that is not below it.
    maxWrite: 4 * LOG_WRITE_MIN_BYTES,
    // Lines kept as a list of buffers, joined once per write. As text, sonic-boom appends each line
    // to one string and measures its UTF-8 length on every append, which copies the whole batch
    // again per line (at 16 KiB, about 8 KiB per line on average).
    contentMode: 'buffer',
  });
  flushWaitingLines(stream, flushAfterMs);
  loggerStdout = stream;
  stream.once('close', () => {
    if (loggerStdout === stream) loggerStdout = undefined;
  });
  return stream;
}

/**
 * Writes lines shorter together than the minimum within `afterMs`. Not sonic-boom's
 * `periodicFlush`: its interval runs for the life of the process and, with nothing buffered,
 * still sends a zero-length write through the thread pool, ten wake-ups a second in an idle
 * gateway ("Twelfth pass", "Measured and reverted"). This timer is armed by the first waiting
 * line and cleared once every byte handed to the stream has been reported written (sonic-boom's
 * `write` event). sonic-boom's `flush()` does nothing while a write is in flight, and the lines
 * left after that write stay buffered below the minimum, so the timer re-arms until the count
 * reaches zero.
 */
function flushWaitingLines(stream: Destination, afterMs: number): void {
  let waiting = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(tick, afterMs);
    // The exit writes what is left; a waiting line must not keep the process alive.
    timer.unref();
  };
  const write = stream.write;
  // pino hands the stream each line as a string; in buffer mode sonic-boom counts a chunk's
  // `length` as its bytes, so the line is encoded here.
  const batchedWrite = function (this: Destination, line: string): boolean {
    const bytes = Buffer.from(line, 'utf8');
    waiting += bytes.length;
    if (timer === undefined) arm();
    return write.call(this, bytes as unknown as string);
  };
  function tick(): void {
    timer = undefined;
    // pino replaces `write` with a no-op once stdout is a broken pipe: nothing more will leave.
    if (waiting <= 0 || closed || stream.write !== batchedWrite) return;
    stream.flush();
    arm();
  }
  const disarm = () => {
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
  };
  stream.write = batchedWrite;
  stream.on('write', (bytes: number) => {
    waiting -= bytes;
    if (waiting <= 0) disarm();
  });
  stream.once('close', () => {
    closed = true;
    disarm();
  });
}
