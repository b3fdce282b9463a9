import { IsIn, IsOptional, IsString, IsUUID, Matches } from 'class-validator';
import { SPEND_GROUPS, type SpendGroupBy } from '../../usage/spend-report.service';

const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DAY_MESSAGE = '$property must be a UTC day written YYYY-MM-DD (spend is kept per day)';

/** GET /admin/spend (docs/spend.md). */
export class SpendQueryDto {
  @IsOptional()
  @IsIn(SPEND_GROUPS)
  group_by?: SpendGroupBy;

  /** First day included. */
  @IsOptional()
  @Matches(DAY, { message: DAY_MESSAGE })
  from?: string;

  /** First day excluded. */
  @IsOptional()
  @Matches(DAY, { message: DAY_MESSAGE })
  to?: string;

  @IsOptional()
  @IsUUID()
  key_id?: string;

  @IsOptional()
  @IsUUID()
  team_id?: string;

  @IsOptional()
  @IsString()
  model?: string;

  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';
}
