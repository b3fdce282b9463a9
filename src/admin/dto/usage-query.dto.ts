import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { IsPlainText, IsTimestamp } from '../../common/validation/field-validators';
import { MAX_REPORT_LIMIT } from '../../usage/report-range';
import type { UsageGroupBy } from '../../usage/usage.types';

const GROUP_BY: UsageGroupBy[] = ['key', 'model'];

export class UsageQueryDto {
  @IsOptional()
  @IsUUID()
  key_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  @IsPlainText()
  model?: string;

  /** Inclusive start, ISO 8601; default 30 days before `to`. */
  @IsOptional()
  @IsTimestamp()
  from?: string;

  /** Exclusive end, ISO 8601; default now. */
  @IsOptional()
  @IsTimestamp()
  to?: string;

  @IsOptional()
  @IsIn(GROUP_BY)
  group_by?: UsageGroupBy;

  /** Rows per page (default 100). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_REPORT_LIMIT)
  limit?: number;

  /** The previous page's `next_after`. */
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  after?: string;
}
