import { IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_END_USER_LENGTH } from '../../common/validation/end-user';

export class UsageSeriesQuery {
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  /** Only this end user's requests (docs/spend.md, "Spend by end user"). */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_END_USER_LENGTH)
  end_user?: string;
}
