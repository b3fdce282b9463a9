import { Injectable, PipeTransform } from '@nestjs/common';
import { GatewayException } from '../../common/errors/gateway.exception';
import { sanitizeBody, shapeException } from '../../common/validation/body-shape';
import { invalidParameter, isJsonObject } from '../../common/validation/invalid-parameter';
import { REFUSED_FIELDS, RESPONSES_COMPATIBILITY } from './compatibility-matrix';
import { parseCreateResponse, RESPONSE_FIELDS } from './dto/create-response.dto';
import type { CreateResponseDto } from './responses.types';

/**
 * Reads a POST /v1/responses body as the chat-completions pipe does: unknown top-level fields
 * (prompt_cache_key, client_metadata, ...) are dropped unread, the rest is checked against the
 * shape limits, then validated field by field in time linear in its size. Fields that stand for
 * state kept at OpenAI (conversation, prompt) are refused rather than dropped.
 */
@Injectable()
export class ResponsesBodyPipe implements PipeTransform<unknown, CreateResponseDto> {
  transform(body: unknown): CreateResponseDto {
    if (!isJsonObject(body)) throw new GatewayException('invalid_body');
    for (const field of REFUSED_FIELDS) {
      if (body[field] != null) {
        const { note } = RESPONSES_COMPATIBILITY[field as keyof typeof RESPONSES_COMPATIBILITY];
        throw invalidParameter(field, `is not supported by the gateway (${note})`);
      }
    }
    const known: Record<string, unknown> = {};
    for (const field of RESPONSE_FIELDS) {
      if (Object.prototype.hasOwnProperty.call(body, field)) known[field] = body[field];
    }
    const violation = sanitizeBody(known);
    if (violation) throw shapeException(violation);
    return parseCreateResponse(known);
  }
}
