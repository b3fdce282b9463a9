import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import type SonicBoom from 'sonic-boom';
import { jsonLogDestination, LOG_FLUSH_INTERVAL_MS, LOG_WRITE_MIN_BYTES } from './pino-options';

/** A stand-in for process.stdout on a file: a Writable whose `write` is its class's own. */
class FileStdout extends Writable {
  constructor(readonly fd: number) {
    super();
  }
}

describe('jsonLogDestination', () => {
  let dir: string;
  let file: string;
  let fd: number;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-log-'));
    file = join(dir, 'stdout.log');
    fd = openSync(file, 'a');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Ends the stream, which writes what is left and closes the file descriptor itself. */
  const ended = (stream: SonicBoom) =>
    new Promise<void>((resolve) => {
      stream.once('close', () => resolve());
      stream.end();
    });

  const written = () => readFileSync(file, 'utf8');
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it("writes a quiet moment's line within the flush interval, without waiting for more", async () => {
    const stream = jsonLogDestination(new FileStdout(fd)) as SonicBoom;
    const logger = pino(stream);
    try {
      const started = Date.now();
      logger.info({ keyId: 'k1' }, 'POST /v1/chat/completions 200');
      // Buffered: a lone line is shorter than one write's minimum.
      expect(written()).toBe('');
      await until(() => written() !== '');
      expect(Date.now() - started).toBeLessThan(LOG_FLUSH_INTERVAL_MS + 500);
      expect(JSON.parse(written())).toMatchObject({
        keyId: 'k1',
        msg: 'POST /v1/chat/completions 200',
      });
    } finally {
      await ended(stream);
    }
  });

  it('writes the lines of a busy moment together, in order, once they fill a write', async () => {
    // An interval no test waits for: only the minimum starts a write here.
    const stream = jsonLogDestination(new FileStdout(fd), 60_000) as SonicBoom;
    const logger = pino(stream);
    try {
      const line = 'x'.repeat(200);
      const below = Math.floor(LOG_WRITE_MIN_BYTES / 300);
      for (let i = 0; i < below; i++) logger.info({ i }, line);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(written()).toBe('');
      const count = below + Math.ceil(LOG_WRITE_MIN_BYTES / line.length);
      for (let i = below; i < count; i++) logger.info({ i }, line);
      await until(() => written() !== '');
      // One write, of everything buffered when the minimum was reached, in order.
      const lines = written().trim().split('\n');
      expect(lines.length).toBeGreaterThan(below);
      expect(lines.map((text) => (JSON.parse(text) as { i: number }).i)).toEqual(
        Array.from({ length: lines.length }, (_, i) => i),
      );
    } finally {
      await ended(stream);
    }
  });

  it("leaves pino's default to a stdout whose write has been replaced, as pino itself does", () => {
    const captured = new FileStdout(fd);
    captured.write = (() => true) as typeof captured.write;
    expect(jsonLogDestination(captured)).toBeUndefined();
    closeSync(fd);
  });
});
