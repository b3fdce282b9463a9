import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export const DrainTimeoutMs = Symbol('DrainTimeoutMs');

/**
 * Counts work still running for requests so that a graceful shutdown can stop taking requests
 * and wait for them before the usage buffer is flushed: every HTTP exchange until its response
 * closes, and every pipeline request until its outcome is recorded (Pipeline), which may be
 * after its client left or, for a stream, after the last event. Without it a stream finishing
 * after the flush would write its usage row to a closed database. Not an interceptor: only a
 * pipeline request's work outlives its response, and an interceptor would put every request
 * through one more rxjs layer.
 */
@Injectable()
export class RequestDrain implements OnApplicationBootstrap {
  private readonly logger = new Logger('Shutdown');
  private readonly responses = new Set<ServerResponse>();
  /**
   * The units of work still running, per request: a pipeline request is one unit for its HTTP
   * exchange and one for its outcome, and counts once (shutdown's "N request(s) in flight").
   */
  private readonly requests = new Map<object, number>();
  private draining = false;
  private idleWaiters: Array<() => void> = [];
  private server: Server | null = null;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(DrainTimeoutMs) private readonly timeoutMs: number,
  ) {}

  onApplicationBootstrap(): void {
    this.server = (this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined) ?? null;
    this.server?.on('request', (_request: IncomingMessage, response: ServerResponse) =>
      this.trackResponse(response),
    );
  }

  /**
   * Marks the start of one unit of work of `request` (its HTTP response; a request of its own when
   * not given); call the returned function (once or more) when it ends.
   */
  begin(request: object = {}): () => void {
    this.requests.set(request, (this.requests.get(request) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = this.requests.get(request)! - 1;
      if (left > 0) this.requests.set(request, left);
      else this.requests.delete(request);
      if (this.requests.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    };
  }

  /** Requests with work still running, each counted once. */
  get inFlight(): number {
    return this.requests.size;
  }

  /**
   * Stops accepting connections, asks keep-alive clients to go, and waits (up to the drain
   * timeout) until no request work is left.
   */
  async drain(): Promise<void> {
    this.draining = true;
    // No callback: Nest's own close of the server later waits for the connections to end.
    this.server?.close();
    for (const response of this.responses)
      if (!response.headersSent) response.setHeader('Connection', 'close');
    if (this.requests.size === 0) return;
    this.logger.log(
      `waiting up to ${this.timeoutMs} ms for running requests to finish (${this.responses.size} response(s) open)`,
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      new Promise<false>((resolve) => this.idleWaiters.push(() => resolve(false))),
      new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), this.timeoutMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.logger.error(
        `requests still running after ${this.timeoutMs} ms (${this.responses.size} response(s) open); their usage may be lost`,
      );
    }
  }

  private trackResponse(response: ServerResponse): void {
    const end = this.begin(response);
    this.responses.add(response);
    // A request that arrives on a kept-alive connection while draining is served, then the
    // connection closes, so clients reconnect to another instance.
    if (this.draining) response.setHeader('Connection', 'close');
    response.once('close', () => {
      this.responses.delete(response);
      end();
    });
  }
}
