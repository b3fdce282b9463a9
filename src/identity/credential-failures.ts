import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { GatewayException } from '../common/errors/gateway.exception';
import { CounterStore } from '../limits/counters/counter-store';
import { formatDuration, retryAfterSeconds } from '../limits/rate-limit-headers';

/** One door of the admin side that takes a guessable credential, and its limit. */
export interface FailureLimit {
  /** Part of the counter's name: each door counts apart. */
  door: 'admin-api' | 'dashboard-sign-in';
  limit: number;
  windowMs: number;
}

export interface CountedFailure {
  /** What to answer: the credential's own refusal (401) within the limit, 429 beyond it. */
  error: GatewayException;
  /** The failure fit within the limit (the caller audits those; beyond it, none). */
  counted: boolean;
}

/**
 * Failed-credential limits of the admin API and the dashboard sign-in (docs/admin-api.md,
 * "Failed credentials"). The caller checks the credential first and counts only a failure, per
 * client address (request.ip, which TRUST_PROXY makes the client's behind proxies): a right
 * credential is never counted and never refused, so no one sharing an address with the admins,
 * or guessing from it, can lock them out. Beyond the limit a wrong credential gets 429 with
 * Retry-After instead of 401, for the rest of the window. The counters are the gateway's (Redis
 * when configured), so several instances count together; during a Redis outage they fall back to
 * each instance's memory, as the gateway's own limits do.
 */
@Injectable()
export class CredentialFailures {
  constructor(@Inject(CounterStore) private readonly counters: CounterStore) {}

  async count(
    request: Request,
    limit: FailureLimit,
    refusal: GatewayException,
  ): Promise<CountedFailure> {
    const result = await this.counters.consume(
      [
        {
          key: `auth:{${limit.door}:${clientAddress(request)}}:failures`,
          limit: limit.limit,
          windowMs: limit.windowMs,
        },
      ],
      1,
    );
    if (result.allowed) return { error: refusal, counted: true };
    const retryAfter = retryAfterSeconds(result.counters[0].resetMs);
    return {
      counted: false,
      error: new GatewayException('rate_limit_exceeded', {
        message:
          `${refusal.message} Too many failed credentials from this address ` +
          `(${limit.limit} per ${formatDuration(limit.windowMs)}): retry after ${retryAfter} s. ` +
          'A correct credential is accepted meanwhile.',
        headers: { 'Retry-After': String(retryAfter) },
      }),
    };
  }
}

/** The client's address, an IPv4 address seen through an IPv6 socket written as IPv4. */
export function clientAddress(request: Request): string {
  const address = request.ip ?? request.socket?.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
