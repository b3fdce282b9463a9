import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Public } from '../auth/public.decorator';
import { GatewayException } from '../common/errors/gateway.exception';
import { CounterStore } from '../limits/counters/counter-store';
import { clearSessionCookie, setSessionCookie } from './dashboard-cookie';
import { DashboardSessionService } from './dashboard-session.service';
import {
  assertDashboardEnabled,
  DashboardRequest,
  DashboardSessionGuard,
} from './dashboard-session.guard';
import { DashboardSettings } from './dashboard-settings';
import { SignInDto } from './dto/sign-in.dto';

/** Sign-in (admin key for a session cookie), the session's CSRF token, and sign-out. */
@Public() // no virtual key: the admin key or the session cookie is the credential here
@Controller('dashboard/api/session')
export class DashboardSessionController {
  private readonly expected: Buffer | null;

  constructor(
    private readonly sessions: DashboardSessionService,
    @Inject(CounterStore) private readonly counters: CounterStore,
    @Inject(DashboardSettings) private readonly settings: DashboardSettings,
  ) {
    this.expected = settings.adminKey ? sha256(settings.adminKey) : null;
  }

  /**
   * Only failed attempts are counted, per client IP: an admin who types the key right is never
   * locked out by a neighbour's successes, and guessing stops after a few tries. Every attempt is
   * charged up front and a success gives its charge back, so concurrent guesses cannot slip past
   * the limit. No CSRF token exists yet; SameSite=Strict and the JSON-only body keep other sites
   * from signing a browser in.
   */
  @Post()
  @HttpCode(200)
  async signIn(
    @Body() body: SignInDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    assertDashboardEnabled(this.settings);
    const failures = {
      key: `dashboard:{signin:${request.ip ?? 'unknown'}}:failures`,
      limit: this.settings.signInFailureLimit,
      windowMs: this.settings.signInFailureWindowMs,
    };
    const attempt = await this.counters.consume([failures], 1);
    if (!attempt.allowed) throw this.lockedOut(attempt.counters[0].resetMs);
    if (!timingSafeEqual(sha256(body.admin_key), this.expected!))
      throw new GatewayException('invalid_admin_key');
    await this.counters.adjust(
      [{ key: failures.key, endsAt: attempt.counters[0].endsAt }],
      -1,
      attempt.backend,
    );
    const { secret, session } = this.sessions.create();
    setSessionCookie(request, response, secret, this.settings.publicBaseUrl);
    return {
      object: 'dashboard_session',
      csrf_token: session.csrfToken,
      idle_timeout_seconds: Math.round(this.sessions.idleMs / 1000),
    };
  }

  /** The page asks once per load whether it is signed in, and learns its CSRF token. */
  @Get()
  @UseGuards(DashboardSessionGuard)
  current(@Req() request: DashboardRequest) {
    return {
      object: 'dashboard_session',
      csrf_token: request.dashboardSession!.csrfToken,
      idle_timeout_seconds: Math.round(this.sessions.idleMs / 1000),
    };
  }

  @Delete()
  @HttpCode(204)
  @UseGuards(DashboardSessionGuard)
  signOut(@Req() request: DashboardRequest, @Res({ passthrough: true }) response: Response): void {
    this.sessions.end(request.dashboardSession!);
    clearSessionCookie(request, response, this.settings.publicBaseUrl);
  }

  private lockedOut(resetMs: number): GatewayException {
    const retryAfter = Math.max(1, Math.ceil(resetMs / 1000));
    return new GatewayException('rate_limit_exceeded', {
      message: `Too many failed sign-ins from this address. Retry after ${retryAfter} s.`,
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
