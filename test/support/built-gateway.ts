import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const LISTENING = /gateway listening on (http:\S+)\/v1/;
const DEMO_KEY = /Demo virtual key: (gk-[\w-]+)/;

export interface BuiltGateway {
  child: ChildProcessWithoutNullStreams;
  /** What it has written so far. */
  output: { stdout: string; stderr: string };
  /** Resolves with the first match of `pattern` in its stdout; rejects if it exits first. */
  printed(pattern: RegExp): Promise<RegExpExecArray>;
  /** Its base URL (no /v1), once it prints that it listens. */
  listening(): Promise<string>;
  /** The demo key it prints on the embedded defaults. */
  demoKey(): Promise<string>;
  /** SIGTERM, resolved once it has exited (at once if it already has). */
  stop(): Promise<void>;
}

/**
 * The built gateway (`node dist/main.js`, as production runs it; compileGateway() first) in a
 * process of its own, with `env` and only PATH and TMPDIR of the test's environment.
 */
export function spawnBuiltGateway(env: Record<string, string | undefined>): BuiltGateway {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR, ...env },
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  // 'close' comes after the last of its output has been read.
  let closed = false;
  child.once('close', () => (closed = true));
  const printed = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(output.stdout);
        if (!match) return false;
        child.stdout.off('data', check);
        child.off('close', gone);
        resolve(match);
        return true;
      };
      const gone = () =>
        check() ||
        reject(
          new Error(
            `the gateway exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${output.stdout}${output.stderr}`,
          ),
        );
      if (check()) return;
      if (closed) return void gone();
      child.stdout.on('data', check);
      child.once('close', gone);
    });
  return {
    child,
    output,
    printed,
    listening: async () => (await printed(LISTENING))[1],
    demoKey: async () => (await printed(DEMO_KEY))[1],
    async stop() {
      if (closed) return;
      const done = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await done;
    },
  };
}
