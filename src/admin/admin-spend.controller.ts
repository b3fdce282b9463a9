import { Controller, Get, Query, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { toCsv } from '../common/http/csv';
import type { Access } from '../identity/access';
import { CurrentAccess, Requires } from '../identity/current-access.decorator';
import { VirtualKeyService } from '../keys/virtual-key.service';
import { TeamsService } from '../teams/teams.service';
import { DEFAULT_REPORT_LIMIT, MAX_REPORT_LIMIT, pageRows } from '../usage/report-range';
import { SpendGroup, SpendReport, type SpendGroupBy } from '../usage/spend-report.service';
import { AdminThrottlerGuard } from './admin-throttler.guard';
import { AdminGuard } from './admin.guard';
import { SpendQueryDto } from './dto/spend-query.dto';
import { KEY_OF_ANOTHER } from './key-access';

/**
 * Spend per key, team, model, deployment, day or end user, from the daily rollups
 * (docs/spend.md). A team admin sees their team's spend, a member one of their keys' (docs/sso.md,
 * "Roles").
 */
@Public() // no virtual key: AdminGuard checks the admin credential instead
@UseGuards(AdminThrottlerGuard, AdminGuard)
@Controller('admin/spend')
export class AdminSpendController {
  constructor(
    private readonly spend: SpendReport,
    private readonly keys: VirtualKeyService,
    private readonly teams: TeamsService,
  ) {}

  @Get()
  @Requires('usage.read')
  async report(
    @Query() query: SpendQueryDto,
    @CurrentAccess() access: Access,
    @Res({ passthrough: true }) response: Response,
  ) {
    const groupBy = query.group_by ?? 'key';
    const teamId = await this.teamInReach(access, query);
    const { from, to, groups } = await this.spend.report({
      groupBy,
      from: query.from,
      to: query.to,
      keyId: query.key_id,
      teamId,
      model: query.model,
    });
    const csv = query.format === 'csv';
    // A CSV export takes the most a page may hold unless told otherwise: it is for a spreadsheet.
    const page = pageRows(
      groups,
      query.limit ?? (csv ? MAX_REPORT_LIMIT : DEFAULT_REPORT_LIMIT),
      query.after,
      (group) => [group.group],
      (group, [after]) => group.group > String(after),
    );
    const names = await this.names(groupBy);
    const data = page.data.map((group) => present(groupBy, group, names));
    if (csv) {
      response.setHeader('content-type', 'text/csv; charset=utf-8');
      if (page.nextAfter) response.setHeader('x-next-after', page.nextAfter);
      response.setHeader(
        'content-disposition',
        `attachment; filename="spend-by-${groupBy}${query.from ? `-${query.from}` : ''}${query.to ? `-${query.to}` : ''}.csv"`,
      );
      const header =
        data.length > 0 ? Object.keys(data[0]) : Object.keys(present(groupBy, EMPTY, names));
      // cost_usd is an exact decimal string: a number to the spreadsheet, not text.
      return toCsv(
        header,
        data.map((row) => Object.values(row)),
        ['cost_usd'],
      );
    }
    return {
      object: 'spend_report',
      group_by: groupBy,
      from,
      to,
      key_id: query.key_id ?? null,
      team_id: teamId ?? null,
      model: query.model ?? null,
      has_more: page.hasMore,
      next_after: page.nextAfter,
      data,
    };
  }

  /**
   * The team filter: as asked for an admin or a viewer. Others must name a key of theirs or a team
   * they administer; a team admin of exactly one team gets that team by default.
   */
  private async teamInReach(access: Access, query: SpendQueryDto): Promise<string | undefined> {
    if (access.readsAll) return query.team_id;
    if (query.key_id)
      access.assert(access.canReadKey(await this.keys.get(query.key_id)), KEY_OF_ANOTHER);
    if (query.team_id)
      access.assert(access.teamIds.has(query.team_id), 'This team is outside your role.');
    if (query.key_id || query.team_id) return query.team_id;
    access.assert(
      access.teamIds.size === 1,
      'Your role sees some spend only: give the team_id of a team you administer, or the key_id of one of your keys.',
    );
    return [...access.teamIds][0];
  }

  private async names(groupBy: SpendGroupBy): Promise<Map<string, string>> {
    if (groupBy === 'key') return this.keys.namesById();
    if (groupBy === 'team') return this.teams.namesById();
    return new Map();
  }
}

const EMPTY: SpendGroup = {
  group: '',
  requests: 0,
  completed: 0,
  failed: 0,
  aborted: 0,
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  costUsd: '0',
  unpricedRequests: 0,
};

/** The columns that name a group, per grouping; '' is "no team" or "no deployment". */
const LABELS: Record<SpendGroupBy, (group: string, names: Map<string, string>) => object> = {
  key: (group, names) => ({ key_id: group, key_name: names.get(group) ?? null }),
  team: (group, names) => ({ team_id: group || null, team_name: names.get(group) ?? null }),
  model: (group) => ({ model: group }),
  deployment: (group) => ({ deployment: group || null }),
  day: (group) => ({ day: group }),
  end_user: (group) => ({ end_user: group }),
};

function present(groupBy: SpendGroupBy, group: SpendGroup, names: Map<string, string>) {
  return {
    ...LABELS[groupBy](group.group, names),
    requests: group.requests,
    completed: group.completed,
    failed: group.failed,
    aborted: group.aborted,
    prompt_tokens: group.promptTokens,
    completion_tokens: group.completionTokens,
    cached_tokens: group.cachedTokens,
    cache_write_tokens: group.cacheWriteTokens,
    reasoning_tokens: group.reasoningTokens,
    cost_usd: group.costUsd,
    unpriced_requests: group.unpricedRequests,
  };
}
