import { KeySettingsDto } from './key-settings.dto';
import { RenamedTo } from './shared-fields';

export class UpdateKeyDto extends KeySettingsDto {
  @RenamedTo()
  name?: string;
}
