import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsPlainText } from '../../common/validation/field-validators';

export class ListKeysQuery {
  /** Matches a key's name or prefix, case-insensitively. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @IsPlainText()
  search?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  per_page?: number;
}
