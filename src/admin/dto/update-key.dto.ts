import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { KeySettingsDto } from './key-settings.dto';

export class UpdateKeyDto extends KeySettingsDto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;
}
