import { IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_END_USER_LENGTH } from '../../common/validation/end-user';
import { IsPlainText, IsTimestamp } from '../../common/validation/field-validators';

export class UsageSeriesQuery {
  @IsOptional()
  @IsTimestamp()
  from?: string;

  @IsOptional()
  @IsTimestamp()
  to?: string;

  /** Only this end user's requests (docs/spend.md, "Spend by end user"). */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_END_USER_LENGTH)
  @IsPlainText()
  end_user?: string;
}
