import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import {
  batchedStdout,
  LOG_FLUSH_AFTER_MS,
  LOG_WRITE_MIN_BYTES,
  writeToStdout,
} from './batched-stdout';

/** A stand-in for process.stdout on a file or a pipe: a Writable whose `write` is its class's own. */
class FdStdout extends Writable {
  constructor(readonly fd: number) {
    super();
  }
}

type Stream = NonNullable<ReturnType<typeof batchedStdout>>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (done: () => boolean, ms = 2_000) => {
  for (const end = Date.now() + ms; !done() && Date.now() < end;) await sleep(5);
};

/** Ends the stream, which writes what is left and closes the file descriptor itself. */
const ended = (stream: Stream) =>
  new Promise<void>((resolve) => {
    stream.once('close', () => resolve());
    stream.end();
  });

describe('batchedStdout', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-log-'));
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('on a file', () => {
    let file: string;
    let fd: number;
    const written = () => readFileSync(file, 'utf8');

    beforeEach(() => {
      file = join(dir, 'stdout.log');
      fd = openSync(file, 'a');
    });

    it("writes a quiet moment's line within the flush delay, without waiting for more", async () => {
      const stream = batchedStdout(new FdStdout(fd))!;
      const logger = pino(stream);
      try {
        const started = Date.now();
        logger.info({ keyId: 'k1' }, 'POST /v1/chat/completions 200');
        // Buffered: a lone line is shorter than one write's minimum.
        expect(written()).toBe('');
        await until(() => written() !== '');
        expect(Date.now() - started).toBeLessThan(LOG_FLUSH_AFTER_MS + 500);
        expect(JSON.parse(written())).toMatchObject({
          keyId: 'k1',
          msg: 'POST /v1/chat/completions 200',
        });
      } finally {
        await ended(stream);
      }
    });

    it('writes nothing more once the waiting lines are out, whatever their characters: no timer runs while idle', async () => {
      const stream = batchedStdout(new FdStdout(fd))!;
      const logger = pino(stream);
      const writes: number[] = [];
      stream.on('write', (bytes: number) => writes.push(bytes));
      try {
        // Not ASCII: the count of bytes waiting must reach zero, or the timer would run on.
        logger.info('one line: é ✓ 🚀');
        await until(() => writes.length > 0);
        expect(writes).toEqual([Buffer.byteLength(written())]);
        expect(JSON.parse(written())).toMatchObject({ msg: 'one line: é ✓ 🚀' });
        // sonic-boom's periodicFlush would write zero bytes here, once per interval.
        await sleep(LOG_FLUSH_AFTER_MS * 4);
        expect(writes).toHaveLength(1);
        logger.info('another line');
        await until(() => writes.length > 1);
        expect(written().trim().split('\n')).toHaveLength(2);
      } finally {
        await ended(stream);
      }
    });

    it('writes the lines of a busy moment together, in order, once they fill a write', async () => {
      // A delay no test waits for: only the minimum starts a write here.
      const stream = batchedStdout(new FdStdout(fd), 60_000)!;
      const logger = pino(stream);
      try {
        const line = 'x'.repeat(200);
        const below = Math.floor(LOG_WRITE_MIN_BYTES / 300);
        for (let i = 0; i < below; i++) logger.info({ i }, line);
        await sleep(50);
        expect(written()).toBe('');
        const count = below + Math.ceil(LOG_WRITE_MIN_BYTES / line.length);
        for (let i = below; i < count; i++) logger.info({ i }, line);
        await until(() => written() !== '');
        const lines = written().trim().split('\n');
        expect(lines.length).toBeGreaterThan(below);
        expect(lines.map((text) => (JSON.parse(text) as { i: number }).i)).toEqual(
          Array.from({ length: lines.length }, (_, i) => i),
        );
      } finally {
        await ended(stream);
      }
    });

    it('writes plain text at once, after the lines logged before it (the demo key after the start-up lines)', async () => {
      // A delay no test waits for: the text must not wait for the batch's timer.
      const stream = batchedStdout(new FdStdout(fd), 60_000)!;
      const logger = pino(stream);
      logger.info('Nest application successfully started');
      writeToStdout('\n  Demo virtual key: gk-test\n\n');
      logger.info('gateway listening');
      await until(() => written().includes('Demo virtual key'));
      expect(written()).toContain('Demo virtual key');
      expect(written().indexOf('successfully started')).toBeLessThan(
        written().indexOf('Demo virtual key'),
      );
      await ended(stream);
      expect(written().indexOf('Demo virtual key')).toBeLessThan(
        written().indexOf('gateway listening'),
      );
    });

    it("leaves pino's default to a stdout whose write has been replaced, as pino itself does", () => {
      const captured = new FdStdout(fd);
      captured.write = (() => true) as typeof captured.write;
      expect(batchedStdout(captured)).toBeUndefined();
      closeSync(fd);
    });
  });

  it('writes a line logged while a write is stuck once that write completes, within the delay', async () => {
    // A pipe whose reader stops reading: the next write waits in the thread pool until it reads.
    const fifo = join(dir, 'stdout.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    const received: Buffer[] = [];
    const drain = () => {
      const chunk = Buffer.alloc(65_536);
      for (;;) {
        try {
          const bytes = readSync(reader, chunk);
          if (bytes === 0) return;
          received.push(Buffer.from(chunk.subarray(0, bytes)));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return;
          throw error;
        }
      }
    };
    const text = () => Buffer.concat(received).toString('utf8');
    const stream = batchedStdout(new FdStdout(writer))!;
    const logger = pino(stream);
    try {
      // Fill the pipe (64 KiB on Linux) so that the next write cannot complete.
      const filler = Buffer.alloc(65_536, 0x20);
      let filled = 0;
      while (filled < filler.length) filled += writeSync(writer, filler, filled);
      for (let i = 0; i * 200 < LOG_WRITE_MIN_BYTES; i++) logger.info({ i }, 'y'.repeat(200));
      logger.info({ last: true }, 'written after the stuck write');
      // Several flush delays pass while the write is stuck: flush() does nothing meanwhile.
      await sleep(LOG_FLUSH_AFTER_MS * 3);
      const unstuck = Date.now();
      drain();
      await until(() => {
        drain();
        return text().includes('written after the stuck write');
      });
      expect(text()).toContain('written after the stuck write');
      expect(Date.now() - unstuck).toBeLessThan(LOG_FLUSH_AFTER_MS + 500);
      const lines = text().trim().split('\n');
      expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ last: true });
    } finally {
      const closed = ended(stream);
      await until(() => {
        drain();
        return false;
      }, 200);
      await closed;
      closeSync(reader);
    }
  });
});
