import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { IsTimestamp } from '../../common/validation/field-validators';
import { IsBudgetUsd } from './budget-usd.validator';
import { OptionalInt4, OptionalModelList } from './shared-fields';
import {
  BUDGET_PERIODS,
  type BudgetPeriod,
  type VirtualKeySettings,
} from '../../keys/virtual-key.types';

/** Key settings on the wire (snake_case). Absent leaves a setting alone; null clears it. */
export class KeySettingsDto {
  /** ISO 8601 time after which the key stops working. */
  @IsOptional()
  @IsTimestamp()
  expires_at?: string | null;

  @OptionalInt4(0)
  rpm_limit?: number | null;

  @OptionalInt4(0)
  tpm_limit?: number | null;

  @OptionalInt4(1)
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
  @OptionalModelList()
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
