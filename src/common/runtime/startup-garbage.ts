import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full collection when start-up is over, called by bootstrap.ts after `app.init()` (which connects
 * the database and compiles Prisma's engine) and before the server listens.
 *
 * Start-up grows V8's young generation to its 32 MiB maximum. V8's memory reducer gives that back
 * (RSS 130 -> 104 MiB), but it only runs a few seconds after a full collection, and only if
 * allocation has been low since. Start-up's last full collection comes mid-start, while the
 * process still allocates, so whether the reducer ran was luck: in 3 of 8 starts measured
 * (docs/performance.md, "Fourth pass: idle memory after start-up") an idle gateway held
 * 130-136 MiB past 15 s. A full collection at the end of start-up arms the reducer at a point
 * after which an idle gateway allocates next to nothing, so it runs about 8 s later in nearly
 * every start (2 of about 20 in the fifth pass still waited longer; on the sixth pass's VM it
 * runs about 24 s later in every start). It costs about 20 ms, once, before the first request
 * is accepted.
 *
 * `--expose-gc` only adds `gc()` to contexts created while it is set, so the function comes from
 * a fresh context and the application's global object never has it.
 */
export function collectStartupGarbage(): void {
  setFlagsFromString('--expose-gc');
  let gc: () => void;
  try {
    gc = runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  gc();
}
