import { IsString, MaxLength } from 'class-validator';

export class SignInDto {
  @IsString()
  @MaxLength(1000)
  admin_key!: string;
}
