import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { IsTimestamp } from '../../common/validation/field-validators';
import type { UsageGroupBy } from '../../usage/usage.types';
import { OptionalModelFilter, ReportCursor, ReportLimit } from './shared-fields';

const GROUP_BY: UsageGroupBy[] = ['key', 'model'];

export class UsageQueryDto {
  @IsOptional()
  @IsUUID()
  key_id?: string;

  @OptionalModelFilter()
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
  @ReportLimit()
  limit?: number;

  /** The previous page's `next_after`. */
  @ReportCursor()
  after?: string;
}
