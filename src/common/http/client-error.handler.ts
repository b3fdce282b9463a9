import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayErrorCode } from '../errors/gateway-error-code';
import { GatewayException } from '../errors/gateway.exception';
import { newRequestId } from './request-id.middleware';

// Node's parser errors by `code`; any other parser error is a malformed request (400).
const PARSER_ERRORS: Record<string, GatewayErrorCode> = {
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'request_too_large',
};

/**
 * Errors Node's HTTP server answers itself, before any Express middleware runs, get the same JSON
 * envelope and x-request-id as every other error instead of Node's empty body: parser failures
 * (`clientError`: headers too large, bad request line or Content-Length, request timeout) and an
 * `Expect` header other than 100-continue (`checkExpectation`, 417).
 */
export function installClientErrorHandlers(server: Server): void {
  // Each connection's latest response: a parser error on a kept-alive or pipelined connection
  // must not be answered inside a response that is still being written.
  const latest = new WeakMap<Socket, ServerResponse>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    latest.set(request.socket, response);
  });

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const inFlight = latest.get(socket);
    // Node's own rule: answer only on a live socket where no response has started, else the
    // peer would read our bytes inside another response.
    if (
      error.code === 'ECONNRESET' ||
      !socket.writable ||
      (inFlight?.headersSent && !inFlight.writableFinished)
    ) {
      socket.destroy();
      return;
    }
    const exception = new GatewayException(PARSER_ERRORS[error.code ?? ''] ?? 'malformed_request');
    const body = JSON.stringify(exception.toBody());
    socket.end(
      `HTTP/1.1 ${exception.status} ${STATUS_CODES[exception.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${newRequestId()}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });

  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify(new GatewayException('expectation_failed').toBody());
    response.shouldKeepAlive = false;
    response.writeHead(417, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'x-request-id': newRequestId(),
    });
    response.end(body);
  });
}
