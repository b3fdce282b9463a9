import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsPlainText } from '../../common/validation/field-validators';

/** `:id` of /admin/keys/:id and /admin/teams/:id (and the dashboard's): an id or a name. */
export class IdOrNameParam {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IsPlainText()
  id!: string;
}
