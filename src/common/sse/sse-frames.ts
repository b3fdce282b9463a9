import { ClientDisconnectedError } from '../errors/client-disconnected.error';
import { GatewayException } from '../errors/gateway.exception';
import { UpstreamError } from '../errors/upstream.error';

export const HEARTBEAT_FRAME = ': keep-alive\n\n';
export const DONE_FRAME = 'data: [DONE]\n\n';

/**
 * Serialises a chunk stream as SSE exactly as OpenAI clients expect: one `data: <json>` line and
 * a blank line per chunk, comment heartbeats while the source is silent, `data: [DONE]` at the
 * end. An error after the first chunk becomes one `data: {"error":...}` frame and the stream ends
 * without [DONE], so a truncated answer can never look complete.
 */
export async function* sseFrames(
  iterator: AsyncIterator<unknown>,
  options: { heartbeatMs: number; onError?: (error: unknown) => void },
): AsyncGenerator<string> {
  let pending: Promise<IteratorResult<unknown>> | undefined;
  let finished = false;
  try {
    while (true) {
      pending ??= iterator.next();
      const step = await nextOrHeartbeat(pending, options.heartbeatMs);
      if (step === 'heartbeat') {
        yield HEARTBEAT_FRAME;
        continue;
      }
      pending = undefined;
      if (step.done) break;
      yield `data: ${JSON.stringify(step.value)}\n\n`;
    }
    finished = true;
  } catch (error) {
    finished = true;
    if (error instanceof ClientDisconnectedError) return;
    options.onError?.(error);
    yield `data: ${JSON.stringify(errorBody(error))}\n\n`;
    return;
  } finally {
    // The consumer left early (client gone): make the source close its upstream.
    if (!finished) await iterator.return?.().catch(() => undefined);
  }
  yield DONE_FRAME;
}

function errorBody(error: unknown) {
  if (error instanceof GatewayException) return error.toBody();
  if (error instanceof UpstreamError) return error.toGatewayException().toBody();
  return new GatewayException('internal_error').toBody();
}

async function nextOrHeartbeat<T>(next: Promise<T>, heartbeatMs: number): Promise<T | 'heartbeat'> {
  if (!(heartbeatMs > 0)) return next;
  let timer: NodeJS.Timeout | undefined;
  const heartbeat = new Promise<'heartbeat'>((resolve) => {
    timer = setTimeout(() => resolve('heartbeat'), heartbeatMs);
  });
  try {
    return await Promise.race([next, heartbeat]);
  } finally {
    clearTimeout(timer);
  }
}
