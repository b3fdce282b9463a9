import { randomHex12 } from '../ids/random-hex';
import type { NextFunction, Request, Response } from 'express';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express' {
  interface Request {
    /** Set by requestIdMiddleware, the first middleware; the request's log line names it. */
    id: string;
  }
}

/**
 * Gives every request an id, echoed in `x-request-id`, so a client's bug report can be matched to
 * the gateway's log. A well-formed id from the caller is kept for end-to-end tracing.
 */
export function requestIdMiddleware(
  request: Request,
  response: Response,
  next: NextFunction,
): void {
  const incoming = request.headers['x-request-id'];
  const id =
    typeof incoming === 'string' && CLIENT_REQUEST_ID.test(incoming) ? incoming : newRequestId();
  request.id = id;
  response.setHeader('x-request-id', id);
  next();
}

export function newRequestId(): string {
  return `req_${randomHex12()}`;
}
