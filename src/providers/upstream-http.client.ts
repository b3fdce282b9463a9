import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Agent, Dispatcher } from 'undici';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { ConcurrencyGate, ReleaseSlot } from './concurrency-gate';
import {
  ERROR_BODY_LIMIT,
  refusalOf,
  toUpstreamError,
  type ClassifyRefusal,
} from './upstream-failure';
import { JsonAnswerHandler } from './upstream-json.handler';
import { readUpstreamSse, type SseEventMapper } from './upstream-sse.reader';
import { AppConfig } from '../config/app-config';
import { standardSignal, type UpstreamSignal } from './attempt-signal';

export interface UpstreamHttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Longest wait for the response headers and between body chunks. */
  timeoutMs: number;
  signal: UpstreamSignal;
  /** Whose `max_concurrency` applies. */
  deployment: DeploymentConfig;
  /** The provider's reading of a non-2xx answer (its error body); by default by HTTP status. */
  errorFromResponse?: ClassifyRefusal;
}

const NO_SLOT: ReleaseSlot = () => undefined;

/** Where undici sends a request: the URL split as its Dispatcher takes it. */
interface Target {
  origin: string;
  path: string;
}

/** Upstream URLs come from the deployments; a config reload may bring new ones, never many. */
const MAX_CACHED_TARGETS = 1_000;

/**
 * One pooled keep-alive HTTP client for every provider. undici's Agent keeps a connection pool
 * per origin; the global fetch builds WHATWG Request/Response objects and web streams on every call and
 * costs several times the CPU per request, which matters on a gateway's hot path.
 */
@Injectable()
export class UpstreamHttpClient implements OnModuleDestroy {
  /**
   * No cap on connections per origin: a capped pool queues request 257 onwards invisibly, and
   * that wait counted against no deadline. Concurrency is limited per deployment instead, with a
   * bounded, visible wait (`max_concurrency`, ConcurrencyGate). Idle sockets are closed after a
   * few seconds, so a burst does not leave a thousand of them open.
   */
  readonly agent = new Agent({
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 60_000,
    connections: null,
  });
  private readonly gates = new Map<string, ConcurrencyGate>();
  private readonly targets = new Map<string, Target>();
  /** Largest JSON answer `postJson` accepts, and largest stream event. */
  readonly maxBodyBytes: number;

  constructor(config: AppConfig) {
    this.maxBodyBytes = config.UPSTREAM_MAX_BODY_BYTES;
  }

  /**
   * Sends a POST and resolves with the 2xx response; any failure becomes an UpstreamError. The
   * deployment's concurrency slot is held until the response body is closed (read, or destroyed).
   */
  async post(input: UpstreamHttpRequest): Promise<Dispatcher.ResponseData> {
    const gate = this.gateFor(input.deployment);
    const release = gate ? await acquireSlot(gate, input.signal) : NO_SLOT;
    let response: Dispatcher.ResponseData;
    try {
      // The agent's own request(), with the URL parsed once: undici's top-level request() parses
      // it into a WHATWG URL and copies the options on every call.
      const { origin, path } = this.targetOf(input.url);
      response = await this.agent.request({
        origin,
        path,
        method: 'POST',
        headers: input.headers,
        body: input.body,
        signal: standardSignal(input.signal),
        headersTimeout: input.timeoutMs,
        bodyTimeout: input.timeoutMs,
      });
    } catch (error) {
      release();
      throw toUpstreamError(error, input.signal);
    }
    if (response.body.closed || response.body.destroyed) release();
    else response.body.once('close', release);
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    const text = await readAtMost(response.body, ERROR_BODY_LIMIT);
    throw refusalOf(input.errorFromResponse, response.statusCode, text, response.headers);
  }

  /**
   * Sends a POST whose 2xx answer is a server-sent event stream, read through the provider's
   * `mapper` (readUpstreamSse: events no larger than UPSTREAM_MAX_BODY_BYTES).
   */
  async postSse<T>(
    input: UpstreamHttpRequest,
    mapper: SseEventMapper<T>,
  ): Promise<AsyncGenerator<readonly T[]>> {
    const response = await this.post(input);
    return readUpstreamSse(
      response.body,
      input.signal,
      { maxEventBytes: this.maxBodyBytes },
      mapper,
    );
  }

  /**
   * Sends a POST and resolves with its 2xx answer parsed as JSON; any failure becomes an
   * UpstreamError, as with `post()` and a non-2xx answer. The answer is collected by a dispatch
   * handler, not read from a `request()` body stream (JsonAnswerHandler),
   * and counted against UPSTREAM_MAX_BODY_BYTES as it arrives: a larger one is cut off, which
   * closes the upstream connection. The deployment's concurrency slot is held until the
   * exchange is over.
   */
  postJson(input: UpstreamHttpRequest): Promise<unknown> {
    const gate = this.gateFor(input.deployment);
    if (!gate) return this.dispatchJson(input, NO_SLOT);
    return acquireSlot(gate, input.signal).then((release) => this.dispatchJson(input, release));
  }

  // Not async: the handler's promise is returned as it is, without another one around it.
  private dispatchJson(input: UpstreamHttpRequest, release: ReleaseSlot): Promise<unknown> {
    const { signal } = input;
    let target: Target;
    try {
      target = this.targetOf(input.url);
    } catch (error) {
      release();
      return Promise.reject(toUpstreamError(error, signal));
    }
    const handler = new JsonAnswerHandler(
      signal,
      input.errorFromResponse,
      this.maxBodyBytes,
      release,
    );
    // A signal aborted before the call has settled the handler already: no connection is taken.
    if (handler.done) return handler.answer;
    this.agent.dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: input.headers,
        body: input.body,
        headersTimeout: input.timeoutMs,
        bodyTimeout: input.timeoutMs,
      },
      handler,
    );
    return handler.answer;
  }

  private targetOf(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.targets.size >= MAX_CACHED_TARGETS) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  /** The deployment's gate, made on first use; none for a deployment without max_concurrency. */
  gateFor(deployment: DeploymentConfig): ConcurrencyGate | undefined {
    if (deployment.maxConcurrency === null) return undefined;
    let gate = this.gates.get(deployment.name);
    if (!gate) {
      gate = new ConcurrencyGate(deployment.name, deployment.maxConcurrency, deployment.maxQueueMs);
      this.gates.set(deployment.name, gate);
    }
    return gate;
  }

  /**
   * Runs after the request drain: whatever is still in flight has outlived the drain timeout and is
   * cut, so its outcome is recorded (as failed) before the usage flush instead of holding it up.
   */
  async onModuleDestroy(): Promise<void> {
    await this.agent.destroy();
  }
}

/** Waits for a deployment's concurrency slot; resolves with its release. */
async function acquireSlot(gate: ConcurrencyGate, signal: UpstreamSignal): Promise<ReleaseSlot> {
  try {
    return await gate.acquire(signal);
  } catch (error) {
    throw toUpstreamError(error, signal);
  }
}

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
