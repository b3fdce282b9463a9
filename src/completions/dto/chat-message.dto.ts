import { IsArray, IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';

export const MESSAGE_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

export class ChatMessageDto {
  @IsIn(MESSAGE_ROLES)
  role: (typeof MESSAGE_ROLES)[number];

  // Text content is required, except on an assistant turn that only carries tool calls.
  @ValidateIf((m: ChatMessageDto) => !(m.role === 'assistant' && Array.isArray(m.tool_calls) && m.content == null))
  @IsString()
  content: string | null;

  @IsOptional() @IsString() @MaxLength(256)
  name?: string;

  @ValidateIf((m: ChatMessageDto) => m.role === 'tool')
  @IsString()
  tool_call_id?: string;

  @ValidateIf((m: ChatMessageDto) => m.role === 'assistant' && m.tool_calls !== undefined)
  @IsArray()
  tool_calls?: unknown[];
}
