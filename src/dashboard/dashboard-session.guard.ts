import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { GatewayException } from '../common/errors/gateway.exception';
import type { Capability } from '../identity/access';
import { AccessService } from '../identity/access.service';
import { REQUIRES } from '../identity/current-access.decorator';
import { CounterStore } from '../limits/counters/counter-store';
import { clearStraySessionCookies, SESSION_COOKIE, sessionCookie } from './dashboard-cookie';
import { DashboardSession, DashboardSessionService } from './dashboard-session.service';
import { DashboardSettings } from './dashboard-settings';

export type DashboardRequest = Request & { dashboardSession?: DashboardSession };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every collection endpoint but sign-in: a live session (401), at most DASHBOARD_RATE_LIMIT calls
 * per DASHBOARD_RATE_WINDOW_MS per session (429 + Retry-After), for state-changing calls the
 * session's CSRF token in `X-CSRF-Token` (403), and the route's @Requires capability for the
 * roles read at sign-in (403 permission_denied; a session without a role only sees itself). The
 * counter store is the gateway's, so the limit holds across instances once REDIS_URL is set.
 */
@Injectable()
export class DashboardSessionGuard implements CanActivate {
  constructor(
    private readonly sessions: DashboardSessionService,
    private readonly accessService: AccessService,
    @Inject(CounterStore) private readonly counters: CounterStore,
    @Inject(DashboardSettings) private readonly settings: DashboardSettings,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<DashboardRequest>();
    assertDashboardEnabled(this.settings);
    const cookie = sessionCookie(request);
    if (cookie.duplicated) throw this.refuseDuplicated(cookie.duplicated, request, context);
    const session = this.sessions.touch(cookie.value);
    if (!session) throw new GatewayException('dashboard_session_required');
    const required = this.reflector.getAllAndOverride<Capability | 'session' | undefined>(
      REQUIRES,
      [context.getHandler(), context.getClass()],
    );

    // Signing out is never refused for going too fast.
    const signOut = required === 'session' && request.method === 'DELETE';
    const { rateLimit: limit, rateWindowMs: windowMs } = this.settings;
    const result = signOut
      ? { allowed: true as const }
      : await this.counters.consume(
          [{ key: `dashboard:{${session.id}}:requests`, limit, windowMs }],
          1,
        );
    if (!result.allowed) {
      const retryAfter = Math.max(1, Math.ceil(result.counters[0].resetMs / 1000));
      throw new GatewayException('rate_limit_exceeded', {
        message: `Dashboard rate limit reached: ${limit} requests per ${windowMs / 1000} s. Retry after ${retryAfter} s.`,
        headers: { 'Retry-After': String(retryAfter) },
      });
    }

    if (
      !SAFE_METHODS.has(request.method) &&
      !DashboardSessionService.csrfMatches(session, request.header('x-csrf-token'))
    ) {
      throw new GatewayException('csrf_token_invalid');
    }

    const access = await this.accessService.accessFor(session.principal);
    if (!required || (required !== 'session' && !access.can(required)))
      throw new GatewayException('permission_denied', {
        message: access.none
          ? 'You have no access to the dashboard: none of your groups is mapped to a role (OIDC_ROLES).'
          : undefined,
      });
    request.dashboardSession = session;
    request.access = access;
    return true;
  }

  /**
   * Two session cookies, one of which someone else may have planted (from another host of the
   * site, or on a narrower path, which the browser sends first): neither is trusted, not even the
   * first. The sessions they name end, the answer expires both cookies where it can, and the page
   * shows its sign-in form, whose new cookie then stands alone.
   */
  private refuseDuplicated(
    values: string[],
    request: Request,
    context: ExecutionContext,
  ): GatewayException {
    for (const value of values) if (value) this.sessions.endBySecret(value);
    const response = context.switchToHttp().getResponse<Response>();
    clearStraySessionCookies(request, response, this.settings.publicBaseUrl);
    return new GatewayException('dashboard_session_required', {
      message: `The browser sent ${values.length} dashboard session cookies (${SESSION_COOKIE}), so none is trusted; they have been cleared where possible. Sign in again.`,
    });
  }
}

export function assertDashboardEnabled(settings: DashboardSettings): void {
  if (!settings.adminKey && !settings.sso)
    throw new GatewayException('not_found', {
      message: 'The dashboard is disabled: set ADMIN_API_KEY or OIDC_ISSUER_URL to enable it.',
    });
}
