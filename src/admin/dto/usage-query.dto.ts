import { IsIn, IsISO8601, IsOptional, IsString, IsUUID } from 'class-validator';
import type { UsageGroupBy } from '../../usage/usage.types';

const GROUP_BY: UsageGroupBy[] = ['key', 'model'];

export class UsageQueryDto {
  @IsOptional()
  @IsUUID()
  key_id?: string;

  @IsOptional()
  @IsString()
  model?: string;

  /** Inclusive start, ISO 8601. */
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  /** Exclusive end, ISO 8601. */
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @IsOptional()
  @IsIn(GROUP_BY)
  group_by?: UsageGroupBy;
}
