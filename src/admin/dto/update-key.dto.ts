import { IsNotEmpty, IsString, MaxLength, ValidateIf } from 'class-validator';
import { IsPlainText } from '../../common/validation/field-validators';
import { KeySettingsDto } from './key-settings.dto';

export class UpdateKeyDto extends KeySettingsDto {
  // Absent leaves the name alone; null is no name, which a key or team must have.
  @ValidateIf((_object, value) => value !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsPlainText()
  name?: string;
}
