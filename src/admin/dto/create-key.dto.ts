import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { KeySettingsDto } from './key-settings.dto';

export class CreateKeyDto extends KeySettingsDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;
}
