import { KeySettingsDto } from './key-settings.dto';
import { ResourceName } from './shared-fields';

export class CreateKeyDto extends KeySettingsDto {
  @ResourceName()
  name!: string;
}
