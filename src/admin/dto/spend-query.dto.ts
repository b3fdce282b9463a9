import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { IsUtcDay } from '../../common/validation/field-validators';
import { SPEND_GROUPS, type SpendGroupBy } from '../../usage/spend-report.service';
import { OptionalModelFilter, ReportCursor, ReportLimit } from './shared-fields';

const PER_DAY = ' (spend is kept per day)';

/** GET /admin/spend (docs/spend.md). */
export class SpendQueryDto {
  @IsOptional()
  @IsIn(SPEND_GROUPS)
  group_by?: SpendGroupBy;

  /** First day included; default 30 days before `to`. */
  @IsOptional()
  @IsUtcDay(PER_DAY)
  from?: string;

  /** First day excluded; default tomorrow (UTC), so today is included. */
  @IsOptional()
  @IsUtcDay(PER_DAY)
  to?: string;

  @IsOptional()
  @IsUUID()
  key_id?: string;

  @IsOptional()
  @IsUUID()
  team_id?: string;

  @OptionalModelFilter()
  model?: string;

  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';

  /** Rows per page: default 100 in JSON, 10,000 (the most) in CSV. */
  @ReportLimit()
  limit?: number;

  /** The previous page's `next_after` (CSV: its `x-next-after` header). */
  @ReportCursor()
  after?: string;
}
