import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import type { Access } from '../identity/access';
import { CurrentAccess, Requires } from '../identity/current-access.decorator';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { DEFAULT_REPORT_LIMIT, pageRows } from '../usage/report-range';
import { UsageReport } from '../usage/usage-report.service';
import type { UsageGroup } from '../usage/usage.types';
import { AdminGuard } from './admin.guard';
import { UsageQueryDto } from './dto/usage-query.dto';
import { KEY_OF_ANOTHER } from './key-access';

/**
 * Usage per key or per public model: daily rollups for whole days, raw rows for the rest. A team
 * admin or a member sees the keys in their reach: per key, or per model for one of those keys
 * (docs/sso.md, "Roles").
 */
@Public() // no virtual key: AdminGuard checks the admin credential instead
@UseGuards(AdminGuard)
@Controller('admin/usage')
export class AdminUsageController {
  constructor(
    private readonly usage: UsageReport,
    private readonly keys: VirtualKeyService,
  ) {}

  @Get()
  @Requires('usage.read')
  async report(@Query() query: UsageQueryDto, @CurrentAccess() access: Access) {
    const groupBy = query.group_by ?? 'key';
    const inReach = await this.keysInReach(access, query.key_id, groupBy);
    const { from, to, groups } = await this.usage.report({
      groupBy,
      keyId: query.key_id,
      model: query.model,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
    });
    const page = pageRows(
      inReach ? groups.filter((group) => inReach.has(group.group)) : groups,
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

  /** The ids of the keys this caller may see; null: all of them (or the one key asked for). */
  private async keysInReach(
    access: Access,
    keyId: string | undefined,
    groupBy: string,
  ): Promise<Set<string> | null> {
    if (access.readsAll) return null;
    if (keyId) {
      access.assert(access.canReadKey(await this.keys.get(keyId)), KEY_OF_ANOTHER);
      return null;
    }
    access.assert(
      groupBy === 'key',
      'Your role sees the usage of some keys only: group by key, or give the key_id of one of them.',
    );
    const keys = await this.keys.list();
    return new Set(keys.filter((key) => access.canReadKey(key)).map((key) => key.id));
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
