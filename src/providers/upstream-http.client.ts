import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Agent, Dispatcher, request } from 'undici';
import { UpstreamError, upstreamErrorFromStatus } from './upstream.error';

export interface UpstreamHttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * One pooled keep-alive HTTP client for every provider. undici's Agent keeps a connection pool
 * per origin; the global fetch costs several times the CPU per request (measured in the
 * foundation issue), which matters on a gateway's hot path.
 */
@Injectable()
export class UpstreamHttpClient implements OnModuleDestroy {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 256 });

  /** Sends a POST and resolves with the 2xx response; any failure becomes an UpstreamError. */
  async post(input: UpstreamHttpRequest): Promise<Dispatcher.ResponseData> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(input.url, {
        method: 'POST',
        headers: input.headers,
        body: input.body,
        dispatcher: this.agent,
        signal: input.signal,
        headersTimeout: input.timeoutMs,
        bodyTimeout: input.timeoutMs,
      });
    } catch (error) {
      throw toUpstreamError(error, input.signal);
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    const text = await readAtMost(response.body, ERROR_BODY_LIMIT);
    const retryAfter = response.headers['retry-after'];
    throw upstreamErrorFromStatus(response.statusCode, text, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  }

  /**
   * Runs after the request drain: whatever is still in flight has outlived the drain timeout and is
   * cut, so its outcome is recorded (as failed) before the usage flush instead of holding it up.
   */
  async onModuleDestroy(): Promise<void> {
    await this.agent.destroy();
  }
}

/** An error body is only logged (2,000 characters of it); a provider's huge page is not read. */
const ERROR_BODY_LIMIT = 64 * 1024;

async function readAtMost(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= limit) break;
    }
  } catch {
    // A broken error body still leaves the status to classify.
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/** Classifies a transport failure; a client abort is passed through untouched. */
export function toUpstreamError(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason ?? error;
  if (error instanceof UpstreamError) return error;
  const code = (error as { code?: string })?.code ?? '';
  const message = (error as Error)?.message ?? String(error);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new UpstreamError('timeout', `${code}: ${message}`, { cause: error });
  }
  return new UpstreamError('unavailable', `${code || 'transport error'}: ${message}`, { cause: error });
}
