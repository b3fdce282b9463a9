import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  Min,
} from 'class-validator';
import { IsPlainText, IsTimestamp } from '../../common/validation/field-validators';
import { IsBudgetUsd } from './budget-usd.validator';
import {
  BUDGET_PERIODS,
  type BudgetPeriod,
  type VirtualKeySettings,
} from '../../keys/virtual-key.types';

const INT4_MAX = 2_147_483_647;

/** Key settings on the wire (snake_case). Absent leaves a setting alone; null clears it. */
export class KeySettingsDto {
  /** ISO 8601 time after which the key stops working. */
  @IsOptional()
  @IsTimestamp()
  expires_at?: string | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(INT4_MAX)
  rpm_limit?: number | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(INT4_MAX)
  tpm_limit?: number | null;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(INT4_MAX)
  token_budget?: number | null;

  /** US dollars per budget_period, a decimal string such as "25.50" (docs/spend.md). */
  @IsOptional()
  @IsBudgetUsd()
  budget_usd?: string | null;

  @IsOptional()
  @IsIn(BUDGET_PERIODS)
  budget_period?: BudgetPeriod | null;

  /** The team the key belongs to (its budgets and allow-list apply too); null leaves the team. */
  @IsOptional()
  @IsUUID()
  team_id?: string | null;

  /** Public models the key may use; empty or null means all. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsPlainText({ each: true })
  @IsString({ each: true })
  allowed_models?: string[] | null;
}

export function toKeySettings(dto: KeySettingsDto): VirtualKeySettings {
  return {
    expiresAt:
      dto.expires_at === undefined || dto.expires_at === null
        ? dto.expires_at
        : new Date(dto.expires_at),
    rpmLimit: dto.rpm_limit,
    tpmLimit: dto.tpm_limit,
    tokenBudget: dto.token_budget,
    budgetUsd: dto.budget_usd,
    budgetPeriod: dto.budget_period,
    teamId: dto.team_id,
    allowedModels: dto.allowed_models === null ? [] : dto.allowed_models,
  };
}
