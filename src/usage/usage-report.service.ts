import { Injectable } from '@nestjs/common';
import { compareText, reportRange } from './report-range';
import { UsageRepository } from './usage.repository';
import type { UsageGroup, UsageQuery } from './usage.types';

/**
 * Totals per key or per public model, for the admin API: the most requests first. Bounded: a
 * query without `from` covers DEFAULT_REPORT_DAYS (docs/usage.md, "Reports at scale").
 */
@Injectable()
export class UsageReport {
  constructor(private readonly repository: UsageRepository) {}

  /** The groups and the range they cover (`from` and `to` filled in where the query left them). */
  async report(query: UsageQuery): Promise<{ from: Date; to: Date; groups: UsageGroup[] }> {
    const range = reportRange(query.from, query.to);
    const totals = await this.repository.totalsByGroup(Object.assign({}, query, range));
    const groups: UsageGroup[] = totals
      .map((total) => ({
        group: total.group,
        requests: total.requests,
        completed: total.completed,
        failed: total.failed,
        aborted: total.aborted,
        promptTokens: total.promptTokens,
        completionTokens: total.completionTokens,
        totalTokens: total.promptTokens + total.completionTokens,
        avgLatencyMs: total.requests > 0 ? Math.round(total.latencyMs / total.requests) : 0,
      }))
      .sort((a, b) => b.requests - a.requests || compareText(a.group, b.group));
    return { from: range.from, to: range.to, groups };
  }
}
