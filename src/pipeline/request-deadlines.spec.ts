import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { manualClientConnection } from '../common/http/client-connection.fixture';
import { standardSignal } from '../providers/attempt-signal';
import { RequestDeadlines, type DeadlineSettings } from './request-deadlines';

/** A request that arrived now, with a request deadline far off unless `settings` say otherwise. */
function deadlinesFor(client = manualClientConnection(), settings: Partial<DeadlineSettings> = {}) {
  return new RequestDeadlines(client, performance.now(), { requestTimeoutMs: 60_000, ...settings });
}

/** The races the deadline still has to reject when it aborts (a private field, read for the test). */
function racesInProgress(deadline: RequestDeadlines): number {
  return (deadline as unknown as { racing: Set<unknown> }).racing.size;
}

/** What went unhandled while `run` ran, and for 10 ms after it (Node reports them a turn late). */
async function unhandledRejectionsOf(run: () => Promise<void>): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    await run();
    await new Promise((resolve) => setTimeout(resolve, 10));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  return unhandled;
}

describe('RequestDeadlines.race', () => {
  it('rejects with the abort reason and leaves no unhandled rejection when already aborted', async () => {
    const unhandled = await unhandledRejectionsOf(async () => {
      const client = manualClientConnection();
      const reason = client.leave();
      const deadline = deadlinesFor(client);
      deadline.beginAttempt(60_000, 'complete answer');
      // What an adapter does with an aborted signal: fail at once.
      const call = Promise.reject(new Error('aborted upstream call'));
      await expect(deadline.race(call)).rejects.toBe(reason);
    });
    expect(unhandled).toEqual([]);
  });

  it('settles with the promise while the signal stays quiet', async () => {
    const deadline = deadlinesFor(manualClientConnection());
    deadline.beginAttempt(60_000, 'complete answer');
    await expect(deadline.race(Promise.resolve(42))).resolves.toBe(42);
    await expect(deadline.race(Promise.reject(new Error('upstream said no')))).rejects.toThrow(
      'upstream said no',
    );
    // Nothing kept for a race that is over.
    expect(racesInProgress(deadline)).toBe(0);
    deadline.dispose();
  });

  it("rejects a race in progress with the deadline's timeout when it passes", async () => {
    const deadline = deadlinesFor(manualClientConnection());
    const signal = deadline.beginAttempt(1, 'first token');
    const never = new Promise<never>(() => undefined);
    await expect(deadline.race(never)).rejects.toThrow(/first token not within 1 ms/);
    expect(signal.reason).toBeInstanceOf(Error);
    expect(racesInProgress(deadline)).toBe(0);
    deadline.dispose();
  });

  it("rejects every race in progress with the client's reason when the client leaves", async () => {
    const client = manualClientConnection();
    const deadline = deadlinesFor(client);
    deadline.beginAttempt(60_000, 'complete answer');
    const first = deadline.race(new Promise<never>(() => undefined));
    const second = deadline.race(new Promise<never>(() => undefined));
    const reason = client.leave();
    await expect(first).rejects.toBe(reason);
    await expect(second).rejects.toBe(reason);
    deadline.dispose();
  });

  it('handles a rejection that comes after the abort (no unhandled rejection)', async () => {
    const unhandled = await unhandledRejectionsOf(async () => {
      const client = manualClientConnection();
      const deadline = deadlinesFor(client);
      deadline.beginAttempt(60_000, 'complete answer');
      let failLater!: (error: Error) => void;
      const call = new Promise<never>((_resolve, reject) => (failLater = reject));
      const raced = deadline.race(call);
      const reason = client.leave();
      await expect(raced).rejects.toBe(reason);
      failLater(new Error('aborted upstream call'));
      deadline.dispose();
    });
    expect(unhandled).toEqual([]);
  });
});

describe('RequestDeadlines.beginAttempt', () => {
  it("aborts the attempt's signal with the client's reason when the client leaves mid-attempt", () => {
    const client = manualClientConnection();
    const deadline = deadlinesFor(client);
    const signal = deadline.beginAttempt(60_000, 'complete answer');
    expect(signal.aborted).toBe(false);
    const reason = client.leave();
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    deadline.dispose();
  });

  it('aborts with a timeout of its own, leaving the client alone, and the next attempt gets a fresh signal', async () => {
    const client = manualClientConnection();
    const deadline = deadlinesFor(client);
    const first = deadline.beginAttempt(1, 'complete answer');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(first.aborted).toBe(true);
    expect((first.reason as Error).message).toMatch(/complete answer not within 1 ms/);
    expect(client.lostReason).toBeUndefined();
    const second = deadline.beginAttempt(60_000, 'complete answer');
    expect(second.aborted).toBe(false);
    deadline.dispose();
  });

  it('stops listening to the client once disposed', () => {
    const client = manualClientConnection();
    const deadline = deadlinesFor(client);
    const signal = deadline.beginAttempt(60_000, 'complete answer');
    expect(client.listening).toBe(1);
    deadline.dispose();
    expect(client.listening).toBe(0);
    client.leave();
    expect(signal.aborted).toBe(false);
  });
});

describe('RequestDeadlines: attempt and request deadlines', () => {
  afterEach(() => jest.restoreAllMocks());

  it("counts an attempt's deadline from the attempt's start, not from the request's arrival", async () => {
    // Arrived 10 s ago, as after a hung deployment: the next attempt still gets its 50 ms.
    const deadline = new RequestDeadlines(manualClientConnection(), performance.now() - 10_000, {
      requestTimeoutMs: 60_000,
    });
    const signal = deadline.beginAttempt(50, 'complete answer');
    expect(signal.aborted).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((signal.reason as Error).message).toMatch(
      /complete answer not within 50 ms of the attempt's start/,
    );
    deadline.dispose();
  });

  it('aborts the attempt in flight when the request deadline passes, and allows no other', async () => {
    const deadline = deadlinesFor(manualClientConnection(), { requestTimeoutMs: 50 });
    const first = deadline.beginAttempt(60_000, 'complete answer');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((first.reason as Error).message).toMatch(/request_timeout_ms \(50 ms\)/);
    expect(deadline.expired).toBe(first.reason);
    expect(deadline.beginAttempt(60_000, 'complete answer').reason).toBe(deadline.expired);
    await expect(deadline.pause(1)).rejects.toBe(deadline.expired);
    deadline.dispose();
  });

  it('ends a backoff when the request deadline passes during it', async () => {
    const deadline = deadlinesFor(manualClientConnection(), { requestTimeoutMs: 30 });
    const started = performance.now();
    await expect(deadline.pause(10_000)).rejects.toThrow(/request_timeout_ms/);
    expect(performance.now() - started).toBeLessThan(5_000);
    deadline.dispose();
  });

  it('lets the answer stand once it is in: the request deadline no longer applies', async () => {
    const deadline = deadlinesFor(manualClientConnection(), { requestTimeoutMs: 30 });
    const signal = deadline.beginAttempt(60_000, 'first token');
    deadline.endAttempt();
    deadline.answered();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(signal.aborted).toBe(false);
    expect(deadline.expired).toBeUndefined();
    deadline.dispose();
  });

  it('times the deadlines counted from arrival in whole milliseconds, never less than what is left', () => {
    const delays: number[] = [];
    const realSetTimeout = global.setTimeout;
    jest.spyOn(global, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return realSetTimeout(callback, ms);
    }) as typeof setTimeout);
    // Accepted 2.25 ms ago: an exact remainder would be fractional.
    const acceptedAt = performance.now() - 2.25;
    const deadline = new RequestDeadlines(manualClientConnection(), acceptedAt, {
      requestTimeoutMs: 30_000,
      streamMaxMs: 1,
    });
    const armedAt = performance.now();
    deadline.dispose();
    expect(delays).toHaveLength(2);
    expect(delays.every(Number.isInteger)).toBe(true);
    expect(delays[0]).toBeGreaterThanOrEqual(acceptedAt + 30_000 - armedAt);
    expect(delays[0]).toBeLessThanOrEqual(30_000 - 2);
    // Already past: due at once.
    expect(delays[1]).toBe(0);
  });
});

// The signal reaches undici as the upstream client hands it over: through standardSignal().
describe("RequestDeadlines: an attempt's signal on an undici request", () => {
  let server: Server;
  let origin: string;
  const agent = new Agent();

  beforeEach(async () => {
    // Answers headers and one chunk, then holds the body open: only an abort ends it.
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  afterAll(() => agent.close());

  it("cancels a request waiting for its headers with the client's reason, and closes the connection", async () => {
    server.removeAllListeners('request');
    server.on('request', () => undefined); // never answers
    const client = manualClientConnection();
    const deadlines = deadlinesFor(client);
    const signal = deadlines.beginAttempt(60_000, 'complete answer');
    const answer = agent.request({
      origin,
      path: '/',
      method: 'POST',
      body: '{}',
      signal: standardSignal(signal),
    });
    const [request] = (await once(server, 'request')) as [IncomingMessage];
    const closed = once(request.socket, 'close');
    const reason = client.leave();
    await expect(answer).rejects.toBe(reason);
    await closed;
    deadlines.dispose();
  });

  it("destroys a body being read when the attempt's deadline passes, and closes the connection", async () => {
    const deadlines = deadlinesFor();
    const signal = deadlines.beginAttempt(100, 'complete answer');
    const arrived = once(server, 'request') as Promise<[IncomingMessage]>;
    const answer = await agent.request({
      origin,
      path: '/',
      method: 'POST',
      body: '{}',
      signal: standardSignal(signal),
    });
    const [request] = await arrived;
    const closed = once(request.socket, 'close');
    await expect(answer.body.text()).rejects.toThrow(
      /complete answer not within 100 ms of the attempt's start/,
    );
    await closed;
    deadlines.dispose();
  });
});
