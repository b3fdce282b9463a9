import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { DEFAULT_REPORT_LIMIT, pageRows } from '../usage/report-range';
import { UsageReport } from '../usage/usage-report.service';
import type { UsageGroup } from '../usage/usage.types';
import { AdminThrottlerGuard } from './admin-throttler.guard';
import { AdminGuard } from './admin.guard';
import { UsageQueryDto } from './dto/usage-query.dto';

/** Usage per key or per public model: daily rollups for whole days, raw rows for the rest. */
@Public() // no virtual key: AdminGuard checks the admin credential instead
@UseGuards(AdminThrottlerGuard, AdminGuard)
@Controller('admin/usage')
export class AdminUsageController {
  constructor(
    private readonly usage: UsageReport,
    private readonly keys: VirtualKeyService,
  ) {}

  @Get()
  async report(@Query() query: UsageQueryDto) {
    const groupBy = query.group_by ?? 'key';
    const { from, to, groups } = await this.usage.report({
      groupBy,
      keyId: query.key_id,
      model: query.model,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
    });
    const page = pageRows(
      groups,
      query.limit ?? DEFAULT_REPORT_LIMIT,
      query.after,
      (group) => [group.requests, group.group],
      (group, [requests, name]) =>
        group.requests < Number(requests) ||
        (group.requests === Number(requests) && group.group > String(name)),
    );
    const names = groupBy === 'key' ? await this.keys.namesById() : new Map<string, string>();
    return {
      object: 'usage_report',
      group_by: groupBy,
      key_id: query.key_id ?? null,
      model: query.model ?? null,
      from: from.toISOString(),
      to: to.toISOString(),
      has_more: page.hasMore,
      next_after: page.nextAfter,
      data: page.data.map((group) =>
        groupBy === 'key'
          ? { key_id: group.group, key_name: names.get(group.group) ?? null, ...totals(group) }
          : { model: group.group, ...totals(group) },
      ),
    };
  }
}

function totals(group: UsageGroup) {
  return {
    requests: group.requests,
    completed: group.completed,
    failed: group.failed,
    aborted: group.aborted,
    prompt_tokens: group.promptTokens,
    completion_tokens: group.completionTokens,
    total_tokens: group.totalTokens,
    avg_latency_ms: group.avgLatencyMs,
  };
}
