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
  const heartbeat = options.heartbeatMs > 0 ? new Heartbeat(options.heartbeatMs) : undefined;
  try {
    while (true) {
      pending ??= iterator.next();
      const step = heartbeat ? await heartbeat.race(pending) : await pending;
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
    heartbeat?.stop();
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

/**
 * The heartbeat countdown of one stream: one timer for the whole stream, restarted (refresh) per
 * event, instead of a timer and a Promise.race per event; each wait settles its own promise, so
 * nothing accumulates on a long-lived one.
 */
class Heartbeat {
  private readonly timer: NodeJS.Timeout;
  private wake?: (value: 'heartbeat') => void;

  constructor(ms: number) {
    this.timer = setTimeout(() => {
      const wake = this.wake;
      this.wake = undefined;
      wake?.('heartbeat');
    }, ms);
  }

  /** `next`'s result, or 'heartbeat' if it takes longer than the interval. */
  race<T>(next: Promise<T>): Promise<T | 'heartbeat'> {
    this.timer.refresh();
    return new Promise<T | 'heartbeat'>((resolve, reject) => {
      this.wake = resolve;
      next.then(
        (value) => {
          this.wake = undefined;
          resolve(value);
        },
        (error: unknown) => {
          this.wake = undefined;
          reject(error);
        },
      );
    });
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
