import type { NextFunction, Request, Response } from 'express';
import { json } from 'express';
import { GatewayErrorCode } from '../errors/gateway-error-code';
import { GatewayException } from '../errors/gateway.exception';
import { shapeException, ShapeViolation } from '../validation/body-shape';
import { findTooDeep } from './json-depth';

// body-parser reports failures as http-errors with a machine-readable `type`.
const BODY_PARSER_ERRORS: Record<string, GatewayErrorCode> = {
  'entity.too.large': 'request_too_large',
  'entity.parse.failed': 'invalid_json',
  'encoding.unsupported': 'unsupported_media_type',
  'charset.unsupported': 'unsupported_media_type',
  'request.aborted': 'invalid_body',
  'request.size.invalid': 'invalid_body',
};

/** Thrown from body-parser's verify hook, which wraps what it catches in an http-error. */
class BodyTooDeepError extends Error {
  readonly type = 'entity.too.deep';
  constructor(readonly violation: ShapeViolation) {
    super('body nested too deep');
  }
}

/**
 * A JSON body parser for one route family: 415 for a body that is not UTF-8 JSON, 413 over
 * `limit`, 400 for malformed JSON, a top-level value that is not an object, or nesting deeper than
 * BODY_SHAPE_LIMITS.maxDepth (checked on the raw bytes, before the parser spends time on it).
 * Errors go through next(), so Nest's exception filter writes the envelope.
 */
export function jsonBodyMiddleware(limit: string) {
  const parse = json({ limit, strict: true, type: () => true, verify: checkRawBody });
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
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        return next(new GatewayException('invalid_body'));
      next();
    });
  };
}

function checkRawBody(
  _request: unknown,
  _response: unknown,
  body: Buffer,
  encoding: string | null,
): void {
  // JSON between systems is UTF-8 (RFC 8259); the depth scan reads UTF-8 bytes.
  if (encoding !== null && encoding !== 'utf-8' && encoding !== 'utf8')
    throw Object.assign(new Error(`unsupported charset ${encoding}`), {
      type: 'charset.unsupported',
    });
  const violation = findTooDeep(body);
  if (violation) throw new BodyTooDeepError(violation);
}

function toGatewayException(error: unknown): unknown {
  if (error instanceof BodyTooDeepError) return shapeException(error.violation);
  const { type, message, status } = error as { type?: string; message?: string; status?: number };
  if (type === 'encoding.unsupported') {
    const { encoding } = error as { encoding?: string };
    return new GatewayException('unsupported_media_type', {
      message: `Content-Encoding "${encoding}" is not supported; send the body uncompressed or with gzip, deflate or br.`,
    });
  }
  const code = type ? BODY_PARSER_ERRORS[type] : undefined;
  // e.g. a Content-Encoding whose body does not decompress: the client's fault, not a bug.
  if (!code)
    return status && status >= 400 && status < 500
      ? new GatewayException('invalid_body', { message: 'The request body could not be read.' })
      : error;
  // The parser's own message says where the JSON broke; it holds nothing but the client's input.
  return new GatewayException(
    code,
    code === 'invalid_json' ? { message: `The request body is not valid JSON: ${message}` } : {},
  );
}

function hasBody(request: Request): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = request.headers['content-length'];
  return length !== undefined && length !== '0';
}
