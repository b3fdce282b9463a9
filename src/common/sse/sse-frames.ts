import { GatewayException } from '../errors/gateway.exception';
import { UpstreamError } from '../errors/upstream.error';

// The SSE frames of a chunk stream, exactly as OpenAI clients expect them: one `data: <json>`
// line and a blank line per chunk, comment heartbeats while the source is silent, `data: [DONE]`
// at the end. sse-stream.ts decides which frame goes when.

export const HEARTBEAT_FRAME = ': keep-alive\n\n';
export const DONE_FRAME = 'data: [DONE]\n\n';

/** One chunk as one event; JSON.stringify escapes newlines, so a chunk stays on one line. */
export function dataFrame(chunk: unknown): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The event that ends a stream which failed after its first chunk (no [DONE] follows it). */
export function errorFrame(error: unknown): string {
  return dataFrame(errorBody(error));
}

function errorBody(error: unknown) {
  if (error instanceof GatewayException) return error.toBody();
  if (error instanceof UpstreamError) return error.toGatewayException().toBody();
  return new GatewayException('internal_error').toBody();
}
