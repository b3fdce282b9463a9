import { IsIn, IsOptional } from 'class-validator';
import { BUDGET_PERIODS, type BudgetPeriod } from '../../common/time/budget-period';
import type { TeamSettings } from '../../teams/team.types';
import { IsBudgetUsd } from './budget-usd.validator';
import { OptionalInt4, OptionalModelList, RenamedTo, ResourceName } from './shared-fields';

/** Team settings on the wire (snake_case). Absent leaves a setting alone; null clears it. */
export class TeamSettingsDto {
  /** US dollars per budget_period, a decimal string such as "500" (docs/spend.md). */
  @IsOptional()
  @IsBudgetUsd()
  budget_usd?: string | null;

  @OptionalInt4(1)
  token_budget?: number | null;

  @IsOptional()
  @IsIn(BUDGET_PERIODS)
  budget_period?: BudgetPeriod | null;

  /** Public models member keys may use at most; empty or null means all. */
  @OptionalModelList()
  allowed_models?: string[] | null;
}

export class CreateTeamDto extends TeamSettingsDto {
  @ResourceName()
  name!: string;
}

export class UpdateTeamDto extends TeamSettingsDto {
  @RenamedTo()
  name?: string;
}

export function toTeamSettings(dto: TeamSettingsDto): TeamSettings {
  return {
    budgetUsd: dto.budget_usd,
    tokenBudget: dto.token_budget,
    budgetPeriod: dto.budget_period,
    allowedModels: dto.allowed_models === null ? [] : dto.allowed_models,
  };
}
