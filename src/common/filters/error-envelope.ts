import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { GatewayException } from '../errors/gateway.exception';
import { UpstreamError } from '../errors/upstream.error';

/** An error answer as one wire format writes it. */
export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * How one wire format answers an error. The error itself is always a GatewayException with a
 * code from the one table (GATEWAY_ERRORS); a format only chooses its status, headers and body.
 */
export interface ErrorEnvelope {
  render(error: GatewayException, requestId: string): RenderedError;
}

/** OpenAI's `{error:{message,type,param,code}}`: every route's, unless a format registers its own. */
export const OPENAI_ERROR_ENVELOPE: ErrorEnvelope = {
  render: (error) => ({ status: error.status, headers: error.headers, body: error.toBody() }),
};

/**
 * The error envelopes of the wire formats, looked up by the exception filter for the request it
 * answers. By request rather than by route: a body too large or a missing key is refused before
 * any route is chosen, and must still be answered in the format the client speaks.
 */
@Injectable()
export class ErrorEnvelopes {
  private readonly formats: Array<{
    matches: (request: Request) => boolean;
    envelope: ErrorEnvelope;
  }> = [];

  /** `matches` tells the format's requests (by path, or by a header it alone sends). */
  register(matches: (request: Request) => boolean, envelope: ErrorEnvelope): void {
    this.formats.push({ matches, envelope });
  }

  for(request: Request): ErrorEnvelope {
    for (const format of this.formats) if (format.matches(request)) return format.envelope;
    return OPENAI_ERROR_ENVELOPE;
  }
}

/** The answer the gateway means for `error`, if it is one it raises deliberately. */
export function deliberateError(error: unknown): GatewayException | undefined {
  if (error instanceof GatewayException) return error;
  if (error instanceof UpstreamError) return error.toGatewayException();
  return undefined;
}
