/**
 * What a test file's gateways print (Nest's console logger, pino's lines, anything written to
 * process.stdout or process.stderr while the file runs) is held back, and shown only for a test
 * that fails: a passing run prints none of the errors the tests provoke on purpose, and a failing
 * test still shows what the gateway said. The test environment (captured-output.environment.ts)
 * says when a test ends and whether it failed.
 */
type Write = (...args: unknown[]) => boolean;

const streams = [process.stdout, process.stderr];
const originals = streams.map((stream) => stream.write as Write);
let held: Array<{ write: Write; args: unknown[] }> = [];

streams.forEach((stream, index) => {
  stream.write = ((...args: unknown[]) => {
    held.push({ write: originals[index], args });
    // A write's callback (the last argument, when it is a function) runs as if it were written.
    const callback = args.at(-1);
    if (typeof callback === 'function') queueMicrotask(() => callback());
    return true;
  }) as typeof stream.write;
});

export interface CapturedOutput {
  /** Writes what was held, after a header line, and forgets it. */
  show(header: string): void;
  /** Forgets what was held. */
  drop(): void;
  /** Puts the streams' own writes back. */
  restore(): void;
}

const captured: CapturedOutput = {
  show(header) {
    const lines = held;
    held = [];
    if (lines.length === 0) return;
    originals[1].call(process.stderr, `\n--- ${header} ---\n`);
    for (const { write, args } of lines)
      write.apply(write === originals[0] ? process.stdout : process.stderr, args);
    originals[1].call(process.stderr, `--- end of ${header} ---\n`);
  },
  drop() {
    held = [];
  },
  restore() {
    streams.forEach((stream, index) => (stream.write = originals[index] as typeof stream.write));
  },
};

(globalThis as { __capturedOutput?: CapturedOutput }).__capturedOutput = captured;
