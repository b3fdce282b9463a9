import { IsOptional } from 'class-validator';
import { IsTimestamp } from '../../common/validation/field-validators';

export class UsageSeriesQuery {
  @IsOptional()
  @IsTimestamp()
  from?: string;

  @IsOptional()
  @IsTimestamp()
  to?: string;
}
