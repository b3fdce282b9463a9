import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { IsPlainText } from '../../common/validation/field-validators';
import { stacked } from '../../common/validation/stacked';
import { MAX_REPORT_LIMIT } from '../../usage/report-range';

/** Postgres int4, the column type of the limits and token budgets. */
const INT4_MAX = 2_147_483_647;

/** A key's or a team's name, as given at creation. */
export function ResourceName(): PropertyDecorator {
  return stacked(IsString(), IsNotEmpty(), MaxLength(200), IsPlainText());
}

/** A new name in an update: absent leaves the name alone; null is no name, which a key or team must have. */
export function RenamedTo(): PropertyDecorator {
  return stacked(
    ValidateIf((_object, value) => value !== undefined),
    ResourceName(),
  );
}

/** An optional int4 setting from `min` (a key's or team's limits and token budget). */
export function OptionalInt4(min: number): PropertyDecorator {
  return stacked(IsOptional(), IsInt(), Min(min), Max(INT4_MAX));
}

/** An optional list of public model names (a key's or team's allow-list). */
export function OptionalModelList(): PropertyDecorator {
  return stacked(
    IsOptional(),
    IsArray(),
    ArrayMaxSize(100),
    IsPlainText({ each: true }),
    IsString({ each: true }),
  );
}

/** A report's optional `model` filter. */
export function OptionalModelFilter(): PropertyDecorator {
  return stacked(IsOptional(), IsString(), MaxLength(200), IsPlainText());
}

/** A report's `limit` query parameter: rows per page. */
export function ReportLimit(): PropertyDecorator {
  return stacked(
    IsOptional(),
    Type(() => Number) as PropertyDecorator,
    IsInt(),
    Min(1),
    Max(MAX_REPORT_LIMIT),
  );
}

/** A report's `after` query parameter: the previous page's cursor. */
export function ReportCursor(): PropertyDecorator {
  return stacked(IsOptional(), IsString(), MaxLength(1024));
}
