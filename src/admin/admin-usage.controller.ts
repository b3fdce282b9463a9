import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { UsageReport } from '../usage/usage-report.service';
import type { UsageGroup } from '../usage/usage.types';
import { AdminThrottlerGuard } from './admin-throttler.guard';
import { AdminGuard } from './admin.guard';
import { UsageQueryDto } from './dto/usage-query.dto';

/** Usage per key or per public model, aggregated from usage_records. */
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
    const groups = await this.usage.report({
      groupBy,
      keyId: query.key_id,
      model: query.model,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
    });
    const names = groupBy === 'key' ? await this.keys.namesById() : new Map<string, string>();
    return {
      object: 'usage_report',
      group_by: groupBy,
      key_id: query.key_id ?? null,
      model: query.model ?? null,
      from: query.from ?? null,
      to: query.to ?? null,
      data: groups.map((group) =>
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
