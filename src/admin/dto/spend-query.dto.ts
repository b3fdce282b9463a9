import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { IsPlainText, IsUtcDay } from '../../common/validation/field-validators';
import { MAX_REPORT_LIMIT } from '../../usage/report-range';
import { SPEND_GROUPS, type SpendGroupBy } from '../../usage/spend-report.service';

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

  @IsOptional()
  @IsString()
  @MaxLength(200)
  @IsPlainText()
  model?: string;

  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';

  /** Rows per page: default 100 in JSON, 10,000 (the most) in CSV. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_REPORT_LIMIT)
  limit?: number;

  /** The previous page's `next_after` (CSV: its `x-next-after` header). */
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  after?: string;
}
