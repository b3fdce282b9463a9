import { Injectable, PipeTransform } from '@nestjs/common';
import { GatewayException } from '../../common/errors/gateway.exception';
import { sanitizeBody, shapeException } from '../../common/validation/body-shape';
import { isJsonObject } from '../../common/validation/invalid-parameter';
import {
  CHAT_COMPLETION_FIELDS,
  CreateChatCompletionDto,
  parseChatCompletion,
} from './dto/create-chat-completion.dto';

/**
 * Reads a chat-completion body in time linear in its size, in three steps: unknown top-level
 * fields are dropped without being looked at (as OpenAI ignores fields it does not know: never an error; docs/providers-and-routing.md, "How a request body is read"), the rest is
 * checked against the shape limits (and loses its prototype keys), then each field is validated
 * by hand-written rules. class-transformer and class-validator cost microseconds per message and
 * are quadratic in an object's keys, so a 1 MiB body would hold the event loop for seconds.
 */
@Injectable()
export class ChatCompletionBodyPipe implements PipeTransform<unknown, CreateChatCompletionDto> {
  transform(body: unknown): CreateChatCompletionDto {
    if (!isJsonObject(body)) throw new GatewayException('invalid_body');
    const known: Record<string, unknown> = {};
    for (const field of CHAT_COMPLETION_FIELDS) {
      if (Object.prototype.hasOwnProperty.call(body, field)) known[field] = body[field];
    }
    const violation = sanitizeBody(known);
    if (violation) throw shapeException(violation);
    return parseChatCompletion(known);
  }
}
