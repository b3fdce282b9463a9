import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { Type } from 'class-transformer';
import { AUDIT_ACTIONS, type AuditAction } from '../../audit/audit.types';

const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DAY_MESSAGE = '$property must be a UTC day written YYYY-MM-DD, as for /admin/spend';

/** GET /admin/audit and the dashboard's Audit page (docs/sso.md, "Audit log"). */
export class AuditQueryDto {
  /** First day included (UTC). */
  @IsOptional()
  @Matches(DAY, { message: DAY_MESSAGE })
  from?: string;

  /** First day excluded (UTC). */
  @IsOptional()
  @Matches(DAY, { message: DAY_MESSAGE })
  to?: string;

  /** An actor type (user, admin_key, cli, system, anonymous), a user id, an OS user or an e-mail. */
  @IsOptional()
  @IsString()
  @MaxLength(320)
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
  target?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  /** `next_cursor` of the previous page. */
  @IsOptional()
  @Matches(/^\d{1,19}$/, { message: 'cursor must be the next_cursor of a previous page' })
  cursor?: string;

  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';
}
