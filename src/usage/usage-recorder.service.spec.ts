import { Logger } from '@nestjs/common';
import type { CompletionOutcome } from './completion-outcome';
import { toUsageRow, UsageRecorder, UsageRecorderOptions } from './usage-recorder.service';
import type { UsageRepository } from './usage.repository';
import type { UsageRow } from './usage.types';

/** A repository double: stores rows, or fails while `failing` is set. */
class FakeRepository {
  readonly written: UsageRow[] = [];
  readonly batches: number[] = [];
  failing = false;
  attempts = 0;

  async insertMany(rows: UsageRow[]): Promise<void> {
    this.attempts++;
    await Promise.resolve();
    if (this.failing) throw new Error('connection refused');
    this.batches.push(rows.length);
    this.written.push(...rows);
  }
}

const defaults: UsageRecorderOptions = {
  flushIntervalMs: 60_000,
  batchSize: 3,
  maxBuffered: 10,
  shutdownAttempts: 3,
};

function outcome(requestId: string): CompletionOutcome {
  return {
    requestId,
    keyId: '00000000-0000-4000-8000-000000000001',
    endpoint: 'chat_completions',
    publicModel: 'alpha-k3',
    deployment: 'alpha-k3/0',
    status: 'completed',
    httpStatus: 200,
    stream: false,
    usage: { promptTokens: 5, completionTokens: 7 },
    cost: null,
    attempts: 1,
    latencyMs: 12,
  };
}

describe('UsageRecorder', () => {
  let repository: FakeRepository;
  let errors: string[];

  const recorder = (options: Partial<UsageRecorderOptions> = {}) =>
    new UsageRecorder(repository as unknown as UsageRepository, { ...defaults, ...options });

  beforeEach(() => {
    repository = new FakeRepository();
    errors = [];
    jest
      .spyOn(Logger.prototype, 'error')
      .mockImplementation((message: unknown) => void errors.push(String(message)));
  });

  afterEach(() => jest.restoreAllMocks());

  it('buffers rows without touching the database until a batch fills or a flush runs', async () => {
    const usage = recorder();
    usage.record(outcome('r1'));
    usage.record(outcome('r2'));
    expect(repository.attempts).toBe(0);
    expect(usage.pending).toBe(2);
    usage.record(outcome('r3')); // batch size reached
    await usage.flush();
    expect(repository.batches).toEqual([3]);
    expect(repository.written.map((row) => row.requestId)).toEqual(['r1', 'r2', 'r3']);
    expect(repository.written[0]).toMatchObject({
      keyId: '00000000-0000-4000-8000-000000000001',
      publicModel: 'alpha-k3',
      deployment: 'alpha-k3/0',
      status: 'completed',
      httpStatus: 200,
      errorCode: null,
      stream: false,
      promptTokens: 5,
      completionTokens: 7,
      latencyMs: 12,
    });
    expect(new Set(repository.written.map((row) => row.id)).size).toBe(3);
  });

  it('writes only full batches while a full batch started the write; flush() writes the rest after it', async () => {
    const usage = recorder();
    for (let i = 1; i <= 3; i++) usage.record(outcome(`r${i}`)); // a full batch: a write starts
    // Rows that arrive while that insert runs: a full batch and one more.
    for (let i = 4; i <= 7; i++) usage.record(outcome(`r${i}`));
    const flushed = usage.flush();
    usage.record(outcome('r8'));
    await flushed;
    // The full batches first, then the rest in one batch, never a partial one between them.
    expect(repository.batches).toEqual([3, 3, 2]);
    expect(repository.written.map((row) => row.requestId).join()).toBe('r1,r2,r3,r4,r5,r6,r7,r8');
    expect(usage.pending).toBe(0);
  });

  it('leaves a partial batch to the timer when only full batches were due', async () => {
    const usage = recorder();
    for (let i = 1; i <= 4; i++) usage.record(outcome(`r${i}`));
    // The write the full batch started, awaited through a flush of nothing more.
    await new Promise((resolve) => setImmediate(resolve));
    expect(repository.batches).toEqual([3]);
    expect(usage.pending).toBe(1);
    await usage.flush();
    expect(repository.batches).toEqual([3, 1]);
  });

  it('writes what was buffered when the flush began, not what arrives during its insert', async () => {
    const usage = recorder();
    usage.record(outcome('r1'));
    const flushed = usage.flush(); // r1 is in flight from here
    usage.record(outcome('r2'));
    await flushed;
    expect(repository.batches).toEqual([1]);
    expect(usage.pending).toBe(1);
  });

  it('flushes on its interval', async () => {
    const usage = recorder({ flushIntervalMs: 10 });
    usage.onApplicationBootstrap();
    usage.record(outcome('r1'));
    // Nobody calls flush(): only the timer can write the row.
    for (let waited = 0; repository.written.length === 0 && waited < 2_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(repository.written.map((row) => row.requestId)).toEqual(['r1']);
    await usage.beforeApplicationShutdown();
  });

  it('keeps rows through a database failure, in order, and writes each once when it recovers', async () => {
    const usage = recorder();
    repository.failing = true;
    for (const id of ['r1', 'r2', 'r3', 'r4']) usage.record(outcome(id));
    await usage.flush();
    expect(usage.pending).toBe(4);
    expect(errors.some((line) => line.includes('could not write 3 usage record(s)'))).toBe(true);
    // While failing, new rows do not trigger writes of their own; only the timer retries.
    const attempts = repository.attempts;
    for (const id of ['r5', 'r6', 'r7']) usage.record(outcome(id));
    expect(repository.attempts).toBe(attempts);

    repository.failing = false;
    await usage.flush();
    expect(usage.pending).toBe(0);
    expect(repository.written.map((row) => row.requestId)).toEqual([
      'r1',
      'r2',
      'r3',
      'r4',
      'r5',
      'r6',
      'r7',
    ]);
  });

  it('logs a failing database once per interval with a count, not on every retry, and says when it is back', async () => {
    const infos: string[] = [];
    jest
      .spyOn(Logger.prototype, 'log')
      .mockImplementation((message: unknown) => void infos.push(String(message)));
    const usage = recorder({ logIntervalMs: 60_000 });
    repository.failing = true;
    usage.record(outcome('r1'));
    for (let retry = 0; retry < 5; retry++) await usage.flush();
    expect(errors.filter((line) => line.includes('usage'))).toEqual([
      expect.stringContaining('could not write 1 usage record(s)'),
    ]);

    repository.failing = false;
    await usage.flush();
    expect(errors.filter((line) => line.includes('usage'))).toEqual([
      expect.stringContaining('could not write 1 usage record(s)'),
      expect.stringContaining('4 more failed usage write(s)'),
    ]);
    expect(infos).toContain('usage records are written again');
  });

  it('bounds the buffer during a long outage, dropping the oldest rows and saying so', async () => {
    const usage = recorder({ maxBuffered: 5 });
    repository.failing = true;
    for (let index = 1; index <= 8; index++) usage.record(outcome(`r${index}`));
    await usage.flush(); // the write the first full batch started fails
    expect(usage.pending).toBe(5);
    repository.failing = false;
    await usage.flush();
    expect(repository.written.map((row) => row.requestId)).toEqual(['r4', 'r5', 'r6', 'r7', 'r8']);
    expect(errors.some((line) => line.includes('dropped the 3 oldest usage record(s)'))).toBe(true);
  });

  it('retries the final flush at shutdown and reports rows it could not write', async () => {
    const usage = recorder({ shutdownAttempts: 2 });
    usage.record(outcome('r1'));
    repository.failing = true;
    await usage.beforeApplicationShutdown();
    expect(repository.attempts).toBe(2);
    expect(
      errors.some((line) => line.includes('1 usage record(s) not written: they are lost')),
    ).toBe(true);

    usage.record(outcome('late'));
    expect(
      errors.some((line) => line.includes('usage of request late arrived after the final flush')),
    ).toBe(true);
  });

  it('writes everything buffered at shutdown, across several batches', async () => {
    const usage = recorder();
    for (let index = 1; index <= 7; index++) usage.record(outcome(`r${index}`));
    await usage.beforeApplicationShutdown();
    expect(repository.written).toHaveLength(7);
    expect(usage.pending).toBe(0);
  });
});

describe('toUsageRow', () => {
  it('gives each row a UUIDv7 id, unique and in the order the rows were made, also within one millisecond', () => {
    const rows = Array.from({ length: 1_000 }, (_, index) => toUsageRow(outcome(`r${index}`)));
    const ids = rows.map((row) => row.id);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // The index on (id, created_at) then takes each batch at its right edge.
    expect([...ids].sort()).toEqual(ids);
    // The id's first 48 bits are the time in milliseconds (read a moment after the row's own).
    const first = rows[0];
    const idTime = parseInt(first.id.replace(/-/g, '').slice(0, 12), 16);
    expect(Math.abs(idTime - first.createdAt.getTime())).toBeLessThan(1_000);
  });
});
