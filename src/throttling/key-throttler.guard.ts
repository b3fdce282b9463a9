import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerRequest } from '@nestjs/throttler';
import type { Request } from 'express';
import { GatewayException } from '../common/errors/gateway.exception';
import { rateLimitHeaders } from '../limits/rate-limit-headers';
import { KEY_REQUESTS_THROTTLER } from './throttler-names';

/**
 * Requests per virtual key. Bind it after the global ApiKeyGuard (controller level), which has
 * put the key on the request by then. Every request it lets through, and the one it refuses,
 * carries OpenAI's `x-ratelimit-*-requests` headers; a refusal is a 429 in the gateway's
 * envelope with Retry-After taken from the current window.
 */
@Injectable()
export class KeyThrottlerGuard extends ThrottlerGuard {
  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    this.throttlers = this.throttlers.filter(
      (throttler) => throttler.name === KEY_REQUESTS_THROTTLER,
    );
  }

  protected override async getTracker(request: Record<string, any>): Promise<string> {
    return (request as Request).virtualKey?.id ?? super.getTracker(request);
  }

  // The key id alone: one limit per key across routes, where the default is one per handler.
  protected override generateKey(_context: ExecutionContext, tracker: string): string {
    return tracker;
  }

  protected override async handleRequest({
    context,
    limit,
    ttl,
    throttler,
    getTracker,
    generateKey,
  }: ThrottlerRequest): Promise<boolean> {
    if (limit <= 0) return true;
    const { req, res } = this.getRequestResponse(context);
    const name = throttler.name ?? KEY_REQUESTS_THROTTLER;
    const key = generateKey(context, await getTracker(req, context), name);
    const record = await this.storageService.increment(key, ttl, limit, 0, name);
    const headers = rateLimitHeaders(
      'requests',
      limit,
      record.totalHits,
      record.timeToExpire * 1000,
    );
    for (const [header, value] of Object.entries(headers))
      this.setResponseHeader(res, header, value);
    if (record.isBlocked) {
      throw new GatewayException('rate_limit_exceeded', {
        message:
          `Rate limit reached for requests on this API key: limit ${limit} per ${ttl / 1000} s. ` +
          `Please try again in ${record.timeToBlockExpire}s.`,
        headers: { 'retry-after': String(record.timeToBlockExpire) },
      });
    }
    return true;
  }
}
