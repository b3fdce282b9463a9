import type { NextFunction, Request, Response } from 'express';
import { json } from 'express';
import { GatewayErrorCode } from '../errors/gateway-error-code';
import { GatewayException } from '../errors/gateway.exception';

// body-parser reports failures as http-errors with a machine-readable `type`.
const BODY_PARSER_ERRORS: Record<string, GatewayErrorCode> = {
  'entity.too.large': 'request_too_large',
  'entity.parse.failed': 'invalid_json',
  'encoding.unsupported': 'unsupported_media_type',
  'charset.unsupported': 'unsupported_media_type',
  'request.aborted': 'invalid_body',
  'request.size.invalid': 'invalid_body',
};

/**
 * A JSON body parser for one route family: 415 for a body that is not JSON, 413 over `limit`,
 * 400 for malformed JSON or a top-level value that is not an object. Errors go through next(),
 * so Nest's exception filter writes the envelope.
 */
export function jsonBodyMiddleware(limit: string) {
  const parse = json({ limit, strict: true, type: () => true });
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!hasBody(request)) {
      request.body = {};
      return next();
    }
    const type = request.headers['content-type'];
    if (!type || !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
      return next(new GatewayException('unsupported_media_type'));
    }
    parse(request, response, (error?: unknown) => {
      if (error) return next(toGatewayException(error));
      const body: unknown = request.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) return next(new GatewayException('invalid_body'));
      next();
    });
  };
}

function toGatewayException(error: unknown): unknown {
  const { type, message, status } = error as { type?: string; message?: string; status?: number };
  if (type === 'encoding.unsupported') {
    const { encoding } = error as { encoding?: string };
    return new GatewayException('unsupported_media_type', {
      message: `Content-Encoding "${encoding}" is not supported; send the body uncompressed or with gzip, deflate or br.`,
    });
  }
  const code = type ? BODY_PARSER_ERRORS[type] : undefined;
  // e.g. a Content-Encoding whose body does not decompress: the client's fault, not a bug.
  if (!code) return status && status >= 400 && status < 500 ? new GatewayException('invalid_body', { message: 'The request body could not be read.' }) : error;
  // The parser's own message says where the JSON broke; it holds nothing but the client's input.
  return new GatewayException(code, code === 'invalid_json' ? { message: `The request body is not valid JSON: ${message}` } : {});
}

function hasBody(request: Request): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = request.headers['content-length'];
  return length !== undefined && length !== '0';
}
