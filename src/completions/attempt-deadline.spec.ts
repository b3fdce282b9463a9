import { AttemptDeadline } from './attempt-deadline';

describe('AttemptDeadline.race', () => {
  it('rejects with the abort reason and leaves no unhandled rejection when already aborted', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const client = new AbortController();
      const reason = new Error('client gone');
      client.abort(reason);
      const deadline = new AttemptDeadline(client.signal, performance.now());
      // What an adapter does with an aborted signal: fail at once.
      const call = Promise.reject(new Error('aborted upstream call'));
      await expect(deadline.race(call)).rejects.toBe(reason);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('settles with the promise while the signal stays quiet', async () => {
    const deadline = new AttemptDeadline(new AbortController().signal, performance.now());
    await expect(deadline.race(Promise.resolve(42))).resolves.toBe(42);
    deadline.dispose();
  });
});
