import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ThrottlerGuard,
  ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { GatewayException } from '../common/errors/gateway.exception';

export const AdminThrottlerOptions = Symbol('AdminThrottlerOptions');
export const AdminThrottlerStorage = Symbol('AdminThrottlerStorage');

/**
 * The admin API's own rate limit (docs/admin-api.md), which slows down guessing the admin key: ADMIN_RATE_LIMIT requests (10) per
 * ADMIN_RATE_WINDOW_MS (10 s) per client IP, counted across all admin routes together.
 * It runs before AdminGuard, so guesses at the admin key are throttled too. Its options and
 * storage have their own tokens: ThrottlerModule registers global ones, which belong to the
 * per-key limits of /v1.
 */
@Injectable()
export class AdminThrottlerGuard extends ThrottlerGuard {
  // @Inject on every position: the parent class's own @Inject tokens would otherwise apply.
  constructor(
    @Inject(AdminThrottlerOptions) options: ThrottlerModuleOptions,
    @Inject(AdminThrottlerStorage) storage: ThrottlerStorage,
    @Inject(Reflector) reflector: Reflector,
  ) {
    super(options, storage, reflector);
  }

  /** One bucket per client for the whole admin API, not one per route as by default. */
  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    throttlerName: string,
  ): string {
    return `admin:${throttlerName}:${tracker}`;
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new GatewayException('rate_limit_exceeded', {
      message: `Admin API rate limit reached: ${detail.limit} requests per ${detail.ttl / 1000} s. Retry after ${detail.timeToBlockExpire} s.`,
      headers: { 'Retry-After': String(detail.timeToBlockExpire) },
    });
  }
}
