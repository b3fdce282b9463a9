import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { Satisfies } from '../../common/validation/satisfies.decorator';
import { ChatMessageDto } from './chat-message.dto';

export class StreamOptionsDto {
  @IsOptional() @IsBoolean()
  include_usage?: boolean;
}

/**
 * The request body of POST /v1/chat/completions. Only fields declared here survive validation
 * (whitelist); which of them reach the provider is decided by the compatibility matrix.
 */
export class CreateChatCompletionDto {
  @IsString() @MinLength(1)
  model: string;

  @IsArray() @ArrayMinSize(1) @ValidateNested({ each: true }) @Type(() => ChatMessageDto)
  messages: ChatMessageDto[];

  @IsOptional() @IsBoolean()
  stream?: boolean;

  @IsOptional() @IsObject() @ValidateNested() @Type(() => StreamOptionsDto)
  stream_options?: StreamOptionsDto;

  @IsOptional() @IsNumber() @Min(0) @Max(2)
  temperature?: number;

  @IsOptional() @IsInt() @Min(1)
  max_tokens?: number;

  @IsOptional() @IsInt() @Min(1)
  max_completion_tokens?: number;

  @IsOptional() @IsNumber() @Min(0) @Max(1)
  top_p?: number;

  @IsOptional()
  @Satisfies(
    (v) => typeof v === 'string' || (Array.isArray(v) && v.length <= 4 && v.every((s) => typeof s === 'string')),
    'must be a string or an array of at most 4 strings',
  )
  stop?: string | string[];

  @IsOptional() @IsInt()
  seed?: number;

  @IsOptional() @IsString()
  user?: string;

  @IsOptional() @IsNumber() @Min(-2) @Max(2)
  presence_penalty?: number;

  @IsOptional() @IsNumber() @Min(-2) @Max(2)
  frequency_penalty?: number;

  @IsOptional() @IsObject()
  logit_bias?: Record<string, number>;

  @IsOptional() @IsObject()
  response_format?: { type: string };

  @IsOptional() @IsArray() @ArrayMaxSize(128) @IsObject({ each: true })
  tools?: object[];

  @IsOptional()
  @Satisfies(
    (v) => ['none', 'auto', 'required'].includes(v as string) || (typeof v === 'object' && v !== null && !Array.isArray(v)),
    'must be "none", "auto", "required" or an object naming a tool',
  )
  tool_choice?: string | object;

  @IsOptional() @IsBoolean()
  parallel_tool_calls?: boolean;

  @IsOptional() @IsString()
  reasoning_effort?: string;
}
