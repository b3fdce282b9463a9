export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retries `check` until it stops throwing or `timeoutMs` passes; returns how long it took. */
export async function eventually(
  check: () => Promise<void>,
  timeoutMs: number,
  intervalMs = 10,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      await check();
      return Date.now() - started;
    } catch (error) {
      if (Date.now() - started > timeoutMs) throw error;
      await sleep(intervalMs);
    }
  }
}

/**
 * Waits until `condition` holds, checking every `intervalMs`; throws once `timeoutMs` has passed
 * without it. Returns how long it took.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
  intervalMs = 10,
): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
  return Date.now() - started;
}
