import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../../database/prisma.service';
import type { InputItem, OutputItem, ResponseObject } from '../responses.types';

/** A stored response as written: the settings are the response object without its output. */
export interface StoredResponseRow {
  id: string;
  keyId: string;
  previousResponseId: string | null;
  inputItems: InputItem[];
  outputItems: OutputItem[];
  settings: Omit<ResponseObject, 'output'>;
}

/** One response of a chain: the items it adds to the conversation. */
export interface ChainLink {
  previousResponseId: string | null;
  inputItems: InputItem[];
  outputItems: OutputItem[];
}

/**
 * One statement writes a batch: the rows as one JSON parameter, through the pool rather than
 * Prisma's query compiler, as a named statement planned once per connection. The columns are
 * `json`, not `jsonb`: stored items are only ever read back whole, so the binary form's cost on
 * every write buys nothing. Committed asynchronously: visible to the next request at once,
 * without waiting for the WAL flush (a few ms per answer on slow disks); a Postgres crash in the
 * next instant can lose the row, and the client then gets 404 and sends the whole input.
 */
const INSERT_BATCH = `
INSERT INTO "stored_responses" ("id", "key_id", "previous_response_id", "input_items", "output_items", "settings")
SELECT "id", "key_id", "previous_response_id", "input_items", "output_items", "settings"
FROM json_to_recordset($1::json) AS r("id" text, "key_id" uuid, "previous_response_id" text,
  "input_items" json, "output_items" json, "settings" json),
  (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

/**
 * Queries on stored_responses, and nothing else. Every read is scoped to the key that created the
 * row and to rows created at or after `since` (the retention cutoff), so an expired row reads as
 * gone before the hourly deletion has removed it.
 */
@Injectable()
export class ResponseStoreRepository {
  constructor(private readonly prisma: PrismaService) {}

  async insertMany(rows: readonly StoredResponseRow[]): Promise<void> {
    const records = rows.map((row) => ({
      id: row.id,
      key_id: row.keyId,
      previous_response_id: row.previousResponseId,
      input_items: row.inputItems,
      output_items: row.outputItems,
      settings: row.settings,
    }));
    await this.prisma.pool.query({
      name: 'stored-responses-insert',
      text: INSERT_BATCH,
      values: [JSON.stringify(records)],
    });
  }

  async find(id: string, keyId: string, since: Date): Promise<StoredResponseRow | null> {
    const row = await this.prisma.storedResponse.findFirst({
      where: { id, keyId, createdAt: { gte: since } },
    });
    if (!row) return null;
    return {
      id: row.id,
      keyId: row.keyId,
      previousResponseId: row.previousResponseId,
      inputItems: row.inputItems as unknown as InputItem[],
      outputItems: row.outputItems as unknown as OutputItem[],
      settings: row.settings as unknown as StoredResponseRow['settings'],
    };
  }

  /**
   * The response `id` and every response before it, oldest first, in one round trip however long
   * the conversation. A chain whose oldest row still names a previous response is broken: that
   * link was deleted or has expired (the caller checks).
   */
  chain(id: string, keyId: string, since: Date): Promise<ChainLink[]> {
    return this.prisma.$queryRaw<ChainLink[]>`
      WITH RECURSIVE chain AS (
        SELECT id, previous_response_id, input_items, output_items, 1 AS depth
        FROM stored_responses
        WHERE id = ${id} AND key_id = ${keyId}::uuid AND created_at >= ${since}
        UNION ALL
        SELECT r.id, r.previous_response_id, r.input_items, r.output_items, chain.depth + 1
        FROM stored_responses r JOIN chain ON r.id = chain.previous_response_id
        WHERE r.key_id = ${keyId}::uuid AND r.created_at >= ${since}
      )
      SELECT previous_response_id AS "previousResponseId", input_items AS "inputItems",
             output_items AS "outputItems"
      FROM chain ORDER BY depth DESC`;
  }

  async delete(id: string, keyId: string, since: Date): Promise<boolean> {
    const { count } = await this.prisma.storedResponse.deleteMany({
      where: { id, keyId, createdAt: { gte: since } },
    });
    return count > 0;
  }

  /** Deletes up to `limit` rows created before `cutoff`; the number deleted. */
  deleteBefore(cutoff: Date, limit: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM stored_responses WHERE id IN (
        SELECT id FROM stored_responses WHERE created_at < ${cutoff} LIMIT ${limit})`;
  }
}
