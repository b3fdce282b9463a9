import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_ROTATION_GRACE_SECONDS } from '../../keys/virtual-key.service';

/** Clients get an hour to move to the new secret unless told otherwise. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 3600;

export class RotateKeyDto {
  /** How long the replaced secret keeps working; 0 ends it at once. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_ROTATION_GRACE_SECONDS)
  grace_seconds?: number;
}
