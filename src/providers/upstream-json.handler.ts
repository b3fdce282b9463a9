import type { Dispatcher } from 'undici';
import { UpstreamError } from '../common/errors/upstream.error';
import {
  ERROR_BODY_LIMIT,
  refusalOf,
  toUpstreamError,
  type ClassifyRefusal,
  type ResponseHeaders,
} from './upstream-failure';
import type { UpstreamSignal } from './attempt-signal';

const NO_HEADERS: ResponseHeaders = Object.freeze({});

/**
 * Collects one JSON answer through undici's dispatch handler interface
 * (node_modules/undici/docs/docs/api/Dispatcher.md, `DispatchHandler`): the body's chunks go
 * straight into a list, where `request()` would wrap them in a `BodyReadable` stream and
 * `text()` would read that stream back through its own queue, a handful of `nextTick`s and
 * promises per answer.
 *
 * It settles once, with the parsed JSON of a 2xx answer or with an error: the provider's own
 * for a non-2xx answer (read up to ERROR_BODY_LIMIT), `invalid_response` for an answer over
 * `maxBodyBytes` or not JSON, the signal's reason once it is aborted, the transport's error
 * otherwise. Whenever it settles before the answer's end it aborts the request, which closes
 * the upstream connection instead of leaving it to send what nobody reads.
 */
export class JsonAnswerHandler implements Dispatcher.DispatchHandler {
  readonly answer: Promise<unknown>;
  private resolve!: (json: unknown) => void;
  private reject!: (error: unknown) => void;
  private controller: Dispatcher.DispatchController | undefined;
  private settled = false;
  private status = 0;
  private headers: ResponseHeaders = NO_HEADERS;
  private size = 0;
  private chunks: Buffer[] = [];
  private readonly onAbort = () => this.fail(this.signal.reason);

  constructor(
    private readonly signal: UpstreamSignal,
    /** The provider's reading of a non-2xx answer; by HTTP status when undefined. */
    private readonly classify: ClassifyRefusal | undefined,
    /** Largest 2xx answer read; a larger one is cut off as `invalid_response`. */
    private readonly maxBodyBytes: number,
    /** Called once, when the exchange is over for the caller (the concurrency slot's release). */
    private readonly onSettled: () => void,
  ) {
    this.answer = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (signal.aborted) this.fail(signal.reason);
    else signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Aborted before a connection was free: nothing is sent.
    if (this.settled) controller.abort(abortReason(this.signal));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: ResponseHeaders,
  ): void {
    if (statusCode < 200 || this.settled) return; // 1xx: the real answer follows.
    this.status = statusCode;
    this.headers = headers;
    if (statusCode < 300 && Number(headers['content-length']) > this.maxBodyBytes)
      this.cutOff(controller, this.tooLarge());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.size += chunk.length;
    if (this.status < 300) {
      if (this.size > this.maxBodyBytes) return this.cutOff(controller, this.tooLarge());
      this.chunks.push(chunk);
      return;
    }
    this.chunks.push(chunk);
    if (this.size >= ERROR_BODY_LIMIT) this.cutOff(controller, this.refusal());
  }

  onResponseEnd(): void {
    if (this.settled) return;
    if (this.status >= 300) return this.fail(this.refusal());
    const text = this.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return this.fail(new UpstreamError('invalid_response', 'completion is not JSON'));
    }
    this.settle();
    this.resolve(json);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return;
    // An error answer whose body breaks off is still classified by its status (and Retry-After)
    // with what arrived of it: a 429 stays a 429, a 400 is not retried as a transport failure.
    if (this.status >= 300 && !this.signal.aborted) return this.fail(this.refusal());
    this.fail(toUpstreamError(error, this.signal));
  }

  /** True once the caller has its answer or its error; nothing more is read or sent. */
  get done(): boolean {
    return this.settled;
  }

  private refusal(): UpstreamError {
    return refusalOf(this.classify, this.status, this.text(ERROR_BODY_LIMIT), this.headers);
  }

  private tooLarge(): UpstreamError {
    return new UpstreamError(
      'invalid_response',
      `answer larger than UPSTREAM_MAX_BODY_BYTES (${this.maxBodyBytes} bytes)`,
    );
  }

  /** The bytes received, at most `maxBytes` of them, as UTF-8 text. */
  private text(maxBytes = Infinity): string {
    const { chunks } = this;
    this.chunks = [];
    const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    return (bytes.length > maxBytes ? bytes.subarray(0, maxBytes) : bytes).toString('utf8');
  }

  /** Settles with `error` and stops the transfer: undici then closes the connection. */
  private cutOff(controller: Dispatcher.DispatchController, error: UpstreamError): void {
    this.fail(error);
    controller.abort(error);
  }

  private fail(error: unknown): void {
    if (this.settled) return;
    const aborted = this.signal.aborted;
    this.settle();
    // An abort while the request is on the wire stops it; undici's onResponseError that follows
    // is ignored, the caller already has the signal's reason.
    if (aborted) this.controller?.abort(abortReason(this.signal));
    this.reject(aborted ? this.signal.reason : error);
  }

  private settle(): void {
    this.settled = true;
    this.chunks = [];
    this.signal.removeEventListener('abort', this.onAbort);
    this.onSettled();
  }
}

function abortReason(signal: UpstreamSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('request aborted');
}
