import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
} from 'class-validator';
import { Type } from 'class-transformer';
import { AUDIT_ACTIONS, type AuditAction } from '../../audit/audit.types';
import { IsPlainText, IsUtcDay } from '../../common/validation/field-validators';

const AS_FOR_SPEND = ', as for /admin/spend';
/** Audit row ids are Postgres bigints. */
const INT8_MAX = 9_223_372_036_854_775_807n;

/** GET /admin/audit and the dashboard's Audit page (docs/sso.md, "Audit log"). */
export class AuditQueryDto {
  /** First day included (UTC). */
  @IsOptional()
  @IsUtcDay(AS_FOR_SPEND)
  from?: string;

  /** First day excluded (UTC). */
  @IsOptional()
  @IsUtcDay(AS_FOR_SPEND)
  to?: string;

  /** An actor type (user, admin_key, cli, system, anonymous), a user id, an OS user or an e-mail. */
  @IsOptional()
  @IsString()
  @MaxLength(320)
  @IsPlainText()
  actor?: string;

  /** One action, or several separated by commas. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.split(',').map((part) => part.trim()) : value,
  )
  @ArrayMaxSize(AUDIT_ACTIONS.length)
  @IsIn(AUDIT_ACTIONS, {
    each: true,
    message: `action must be one or more of ${AUDIT_ACTIONS.join(', ')}`,
  })
  action?: AuditAction[];

  /** A key's or a team's id or name, or the config file's path. */
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  @IsPlainText()
  target?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  /** `next_cursor` of the previous page. */
  @IsOptional()
  @ValidateBy({
    name: 'isAuditCursor',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && /^\d{1,19}$/.test(value) && BigInt(value) <= INT8_MAX,
      defaultMessage: () => 'cursor must be the next_cursor of a previous page',
    },
  })
  cursor?: string;

  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';
}
