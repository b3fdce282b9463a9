import type { CanonicalRequest, ChatTurn } from '../../pipeline/canonical';
import { passthroughParameters } from './compatibility-matrix';
import type { ChatMessageDto } from './dto/chat-message.dto';
import type { CreateChatCompletionDto } from './dto/create-chat-completion.dto';

/** A validated chat-completions body as the pipeline's request: it is the canonical form already. */
export function toCanonicalRequest(body: CreateChatCompletionDto): CanonicalRequest {
  return {
    endpoint: 'chat_completions',
    model: body.model,
    messages: body.messages.map(toChatTurn),
    parameters: passthroughParameters(body),
    endUser: body.user,
  };
}

function toChatTurn(message: ChatMessageDto): ChatTurn {
  const turn: ChatTurn = { role: message.role, content: message.content ?? null };
  if (message.name !== undefined) turn.name = message.name;
  if (message.tool_call_id !== undefined) turn.tool_call_id = message.tool_call_id;
  if (message.tool_calls !== undefined) turn.tool_calls = message.tool_calls;
  if (message.function_call !== undefined) turn.function_call = message.function_call;
  return turn;
}
