import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsPlainText } from '../../common/validation/field-validators';
import { KeySettingsDto } from './key-settings.dto';

export class CreateKeyDto extends KeySettingsDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsPlainText()
  name!: string;
}
