import { Injectable } from '@nestjs/common';
import { UsageRepository } from './usage.repository';
import type { UsageGroup, UsageQuery } from './usage.types';

/** Aggregates usage records per key or per public model, for the admin API. */
@Injectable()
export class UsageReport {
  constructor(private readonly repository: UsageRepository) {}

  async report(query: UsageQuery): Promise<UsageGroup[]> {
    const groups = new Map<string, UsageGroup & { latencySum: number }>();
    for (const count of await this.repository.countByGroupAndStatus(query)) {
      let group = groups.get(count.group);
      if (!group) {
        group = {
          group: count.group,
          requests: 0,
          completed: 0,
          failed: 0,
          aborted: 0,
          promptTokens: 0,
          completionTokens: 0,
          totalTokens: 0,
          avgLatencyMs: 0,
          latencySum: 0,
        };
        groups.set(count.group, group);
      }
      group.requests += count.requests;
      group[count.status] += count.requests;
      group.promptTokens += count.promptTokens;
      group.completionTokens += count.completionTokens;
      group.totalTokens += count.promptTokens + count.completionTokens;
      group.latencySum += count.latencyMs;
    }
    return [...groups.values()]
      .map(({ latencySum, ...group }) =>
        Object.assign(group, {
          avgLatencyMs: group.requests > 0 ? Math.round(latencySum / group.requests) : 0,
        }),
      )
      .sort((a, b) => b.requests - a.requests || a.group.localeCompare(b.group));
  }
}
