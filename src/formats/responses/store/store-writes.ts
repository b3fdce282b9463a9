import type { StoredResponseRow } from './response-store.repository';

/** Rows per statement, so one statement's JSON parameter stays a few MiB at most. */
const MAX_BATCH = 64;

interface QueuedWrite {
  row: StoredResponseRow;
  done: (error?: unknown) => void;
}

/**
 * Group commit for stored responses: the writes that arrive while a statement is running go out
 * together in the next one, so under load the store costs one statement per batch instead of one
 * per response, and when idle a write leaves on the next turn of the event loop. Every caller
 * still waits for its own row: a response is stored before its last event is sent.
 */
export class StoreWrites {
  private queue: QueuedWrite[] = [];
  private running = false;

  constructor(private readonly insertMany: (rows: StoredResponseRow[]) => Promise<void>) {}

  write(row: StoredResponseRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      let failure: unknown;
      try {
        await this.insertMany(batch.map((write) => write.row));
      } catch (error) {
        failure = error ?? new Error('store write failed');
      }
      for (const write of batch) write.done(failure);
    }
    this.running = false;
  }
}
