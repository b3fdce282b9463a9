import { Injectable, PipeTransform } from '@nestjs/common';
import { GatewayException } from '../../common/errors/gateway.exception';
import { sanitizeBody, shapeException } from '../../common/validation/body-shape';
import { isJsonObject } from '../../common/validation/invalid-parameter';
import type { CountTokensRequest, MessagesRequest } from './anthropic-messages.types';
import { parseCountTokensRequest, parseMessagesRequest } from './dto/create-message.dto';

/**
 * Reads a Messages API body in time linear in its size: the whole body is checked against the
 * shape limits and loses its prototype keys (unknown fields are kept, for pass-through), then the
 * fields the gateway reads are validated by hand-written rules, as the chat-completions body is
 * (chat-completion-body.pipe.ts).
 */
abstract class AnthropicBodyPipe<T> implements PipeTransform<unknown, T> {
  transform(body: unknown): T {
    if (!isJsonObject(body)) throw new GatewayException('invalid_body');
    const violation = sanitizeBody(body);
    if (violation) throw shapeException(violation);
    return this.parse(body);
  }

  protected abstract parse(body: Record<string, unknown>): T;
}

@Injectable()
export class MessagesBodyPipe extends AnthropicBodyPipe<MessagesRequest> {
  protected parse(body: Record<string, unknown>): MessagesRequest {
    return parseMessagesRequest(body);
  }
}

@Injectable()
export class CountTokensBodyPipe extends AnthropicBodyPipe<CountTokensRequest> {
  protected parse(body: Record<string, unknown>): CountTokensRequest {
    return parseCountTokensRequest(body);
  }
}
