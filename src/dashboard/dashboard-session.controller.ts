import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Logger,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Public } from '../auth/public.decorator';
import { GatewayException } from '../common/errors/gateway.exception';
import type { Access } from '../identity/access';
import { CredentialFailures } from '../identity/credential-failures';
import { CurrentAccess, Requires } from '../identity/current-access.decorator';
import { IdentityService } from '../identity/identity.service';
import { OidcClient } from '../identity/oidc-client.service';
import { ADMIN_KEY_PRINCIPAL, auditScopeOf } from '../identity/principal';
import { roleName } from '../identity/roles';
import { clearSessionCookie, setSessionCookie } from './dashboard-cookie';
import { DashboardSessionService } from './dashboard-session.service';
import {
  assertDashboardEnabled,
  DashboardRequest,
  DashboardSessionGuard,
} from './dashboard-session.guard';
import { DashboardSettings, dashboardOrigin } from './dashboard-settings';
import { SignInDto } from './dto/sign-in.dto';

/**
 * The sign-in page's choices, admin-key sign-in (the key for a session cookie), the session's
 * identity, roles and CSRF token, and sign-out. SSO sign-in is DashboardSsoController's.
 */
@Public() // no virtual key: the admin key or the session cookie is the credential here
@Controller('dashboard/api/session')
export class DashboardSessionController {
  private readonly logger = new Logger('Dashboard');
  private readonly expected: Buffer | null;

  constructor(
    private readonly sessions: DashboardSessionService,
    private readonly identity: IdentityService,
    private readonly oidc: OidcClient,
    private readonly failures: CredentialFailures,
    @Inject(DashboardSettings) private readonly settings: DashboardSettings,
  ) {
    this.expected = settings.adminKey ? sha256(settings.adminKey) : null;
  }

  /** What the sign-in page offers: the admin-key form, the SSO button, or both. */
  @Get('options')
  options() {
    assertDashboardEnabled(this.settings);
    return {
      object: 'dashboard_sign_in_options',
      admin_key: this.settings.adminKeySignIn,
      sso: this.settings.sso,
    };
  }

  /**
   * The admin key for a session. A right key always signs in; only a wrong one is counted, per
   * client address (CredentialFailures), and beyond DASHBOARD_SIGNIN_FAILURE_LIMIT it gets 429
   * with Retry-After instead of 401: the admin, even at the guesser's address, is never locked
   * out. No CSRF token exists yet; SameSite=Strict and the JSON-only body keep other sites from
   * signing a browser in. Each sign-in writes an audit row, and so does each wrong key within
   * the limit; beyond it the 429s are not audited one by one, so guessing cannot flood the log.
   */
  @Post()
  @HttpCode(200)
  async signIn(
    @Body() body: SignInDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ) {
    assertDashboardEnabled(this.settings);
    if (!this.settings.adminKeySignIn)
      throw new GatewayException('not_found', {
        message: this.settings.adminKey
          ? 'Admin-key sign-in is off (DASHBOARD_ADMIN_KEY_SIGNIN=off): sign in with SSO.'
          : 'Admin-key sign-in needs ADMIN_API_KEY: sign in with SSO.',
      });
    const origin = auditScopeOf(null, request);
    if (!timingSafeEqual(sha256(body.admin_key), this.expected!)) {
      const failure = await this.failures.count(
        request,
        this.settings.signInFailures,
        new GatewayException('invalid_admin_key'),
      );
      if (failure.counted)
        await this.identity.recordFailedSignIn('admin_key', 'invalid_admin_key', origin);
      throw failure.error;
    }
    await this.identity.recordAdminKeySignIn(ADMIN_KEY_PRINCIPAL, origin);
    const { secret, session } = this.sessions.create(ADMIN_KEY_PRINCIPAL);
    setSessionCookie(request, response, secret, this.settings.publicBaseUrl);
    return {
      object: 'dashboard_session',
      csrf_token: session.csrfToken,
      idle_timeout_seconds: Math.round(this.sessions.idleMs / 1000),
    };
  }

  /** The page asks once per load who is signed in, what they may do, and learns its CSRF token. */
  @Get()
  @UseGuards(DashboardSessionGuard)
  @Requires('session')
  current(@Req() request: DashboardRequest, @CurrentAccess() access: Access) {
    const { principal, csrfToken } = request.dashboardSession!;
    return {
      object: 'dashboard_session',
      csrf_token: csrfToken,
      idle_timeout_seconds: Math.round(this.sessions.idleMs / 1000),
      method: principal.kind === 'admin_key' ? 'admin_key' : 'sso',
      user:
        principal.kind === 'user'
          ? { id: principal.userId, email: principal.email, name: principal.name }
          : null,
      roles: principal.roles.map(roleName),
      permissions: permissionsOf(access),
    };
  }

  /**
   * Ends the session (204). After an SSO sign-in at a provider that offers RP-initiated logout,
   * 200 with `logout_url`, the provider's page that ends its own session too and comes back to
   * /dashboard. The session ends even when its audit row cannot be written: signing out must
   * always work; the failure is logged.
   */
  @Delete()
  @UseGuards(DashboardSessionGuard)
  @Requires('session')
  async signOut(@Req() request: DashboardRequest, @Res({ passthrough: true }) response: Response) {
    const session = request.dashboardSession!;
    this.sessions.end(session);
    clearSessionCookie(request, response, this.settings.publicBaseUrl);
    await this.identity
      .recordSignOut(session.principal, auditScopeOf(session.principal, request))
      .catch((error: Error) =>
        this.logger.error(`the sign-out's audit row could not be written: ${error.message}`),
      );
    const logoutUrl = session.idToken
      ? await this.oidc.endSessionUrl(
          session.idToken,
          `${dashboardOrigin(this.settings, request)}/dashboard`,
        )
      : null;
    if (!logoutUrl) {
      response.status(204);
      return;
    }
    response.status(200);
    return { object: 'dashboard_sign_out', logout_url: logoutUrl };
  }
}

/** What the page may show; the server checks every call again. */
export function permissionsOf(access: Access) {
  return {
    overview: access.can('overview.read'),
    keys: access.can('keys.read'),
    create_keys: access.can('keys.write'),
    usage: access.can('usage.read'),
    audit: access.can('audit.read'),
  };
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
