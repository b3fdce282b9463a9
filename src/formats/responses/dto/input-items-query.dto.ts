import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import type { InputItemsQuery } from '../store/input-items-page';

/** The query of GET /v1/responses/{id}/input_items, as OpenAI takes it. */
export class InputItemsQueryDto implements InputItemsQuery {
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';

  @IsOptional()
  @IsString()
  after?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  /** Accepted and ignored: stored items are returned whole. */
  @IsOptional()
  include?: string | string[];
}
