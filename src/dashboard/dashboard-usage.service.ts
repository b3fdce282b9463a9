import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

export interface UsageBucketRow {
  bucket: Date;
  keyId: string;
  model: string;
  /** The API the requests came in by (chat_completions, messages). */
  endpoint: string;
  requests: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  latencySum: number;
  /** Exact decimal string of US dollars; null when no request of the row had a price. */
  costUsd: string | null;
}

/** Time series over usage_records for the Usage page, and each key's last use for the Keys page. */
@Injectable()
export class DashboardUsageService {
  constructor(private readonly prisma: PrismaService) {}

  /** One row per time bucket, key, model and endpoint, in bucket order; the database groups. */
  async buckets(from: Date, to: Date, bucketSeconds: number): Promise<UsageBucketRow[]> {
    const rows = await this.prisma.$queryRaw<Array<Record<string, unknown>>>`
      SELECT to_timestamp(floor(extract(epoch FROM created_at) / ${bucketSeconds}::int) * ${bucketSeconds}::int) AS bucket,
             key_id::text AS key_id, public_model, endpoint,
             count(*)::int AS requests,
             (count(*) FILTER (WHERE status <> 'completed'))::int AS errors,
             coalesce(sum(prompt_tokens), 0)::bigint AS prompt_tokens,
             coalesce(sum(completion_tokens), 0)::bigint AS completion_tokens,
             coalesce(sum(latency_ms), 0)::bigint AS latency_sum,
             sum(cost_usd)::text AS cost_usd
        FROM usage_records
       WHERE created_at >= ${from} AND created_at < ${to}
       GROUP BY 1, 2, 3, 4
       ORDER BY 1`;
    return rows.map((row) => ({
      bucket: row.bucket as Date,
      keyId: row.key_id as string,
      model: row.public_model as string,
      endpoint: row.endpoint as string,
      requests: Number(row.requests),
      errors: Number(row.errors),
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      latencySum: Number(row.latency_sum),
      costUsd: (row.cost_usd as string | null) ?? null,
    }));
  }

  async lastUsed(keyIds: string[]): Promise<Map<string, Date>> {
    if (keyIds.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<Array<{ key_id: string; last_used: Date }>>`
      SELECT key_id::text AS key_id, max(created_at) AS last_used FROM usage_records WHERE key_id = ANY(${keyIds}::uuid[]) GROUP BY key_id`;
    return new Map(rows.map((row) => [row.key_id, row.last_used]));
  }
}
