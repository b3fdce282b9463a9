import { Controller, Get, Inject, Logger, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { GatewayException } from '../common/errors/gateway.exception';
import { IdentityService } from '../identity/identity.service';
import { describe, OidcClient } from '../identity/oidc-client.service';
import { auditScopeOf } from '../identity/principal';
import { SIGN_IN_TRANSACTION_MS, SignInTransactions } from '../identity/sign-in-transactions';
import {
  clearSignInCookie,
  readCookie,
  setSessionCookie,
  SIGN_IN_COOKIE,
  setSignInCookie,
} from './dashboard-cookie';
import { DashboardSessionService } from './dashboard-session.service';
import { assertDashboardEnabled } from './dashboard-session.guard';
import { dashboardOrigin, DashboardSettings } from './dashboard-settings';

/** Why a sign-in was refused, as the page's `sign_in_error` and the audit row's reason. */
type SignInFailure = 'expired' | 'provider' | 'refused' | 'unavailable';

/**
 * "Sign in with SSO" (docs/sso.md): the authorization code flow with PKCE, state and nonce. The
 * transaction waits server-side, keyed by a random id in a SameSite=Lax cookie that survives the
 * provider's cross-site redirect back; the session it ends in is the usual one (HttpOnly,
 * SameSite=Strict, CSRF token, idle expiry).
 */
@Public() // no virtual key: the identity provider vouches for the person here
@Controller('dashboard/auth')
export class DashboardSsoController {
  private readonly logger = new Logger('Dashboard');

  constructor(
    private readonly oidc: OidcClient,
    private readonly transactions: SignInTransactions,
    private readonly identity: IdentityService,
    private readonly sessions: DashboardSessionService,
    @Inject(DashboardSettings) private readonly settings: DashboardSettings,
  ) {}

  /** Sends the browser to the provider; the redirect URI is `<PUBLIC_BASE_URL>/dashboard/auth/callback`. */
  @Get('login')
  async login(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.assertSso();
    const redirectUri = `${dashboardOrigin(this.settings, request)}/dashboard/auth/callback`;
    let url: URL;
    try {
      const started = await this.oidc.startSignIn(redirectUri);
      url = started.url;
      const id = this.transactions.begin(started.transaction);
      setSignInCookie(request, response, id, SIGN_IN_TRANSACTION_MS, this.settings.publicBaseUrl);
    } catch (error) {
      this.logger.error(`SSO sign-in could not start: ${describe(error)}`);
      return this.back(response, 'unavailable');
    }
    response.redirect(303, url.toString());
  }

  /**
   * The provider's answer. The transaction is taken once (a replayed callback finds none); state,
   * issuer, PKCE and the ID token (JWKS signature, issuer, audience, expiry, nonce) are checked by
   * openid-client. Success and failure each write an audit row.
   */
  @Get('callback')
  async callback(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.assertSso();
    const transaction = this.transactions.take(readCookie(request, SIGN_IN_COOKIE));
    clearSignInCookie(request, response, this.settings.publicBaseUrl);
    const origin = auditScopeOf(null, request);
    let failure: SignInFailure;
    let reason: string;
    if (!transaction) {
      failure = 'expired';
      reason = 'no pending sign-in for this browser (expired, already used, or never started)';
    } else {
      try {
        // The registered redirect URI with the provider's query: behind a proxy that strips a
        // path prefix, the request's own path is not the one the provider was given.
        const callbackUrl = new URL(transaction.redirectUri);
        callbackUrl.search = new URL(request.originalUrl, callbackUrl).search;
        const result = await this.oidc.finishSignIn(callbackUrl, transaction);
        const principal = await this.identity.signIn(result, origin);
        const { secret } = this.sessions.create(principal, result.idToken);
        setSessionCookie(request, response, secret, this.settings.publicBaseUrl);
        return response.redirect(303, '/dashboard');
      } catch (error) {
        reason = describe(error);
        // openid-client's protocol and validation failures carry OAUTH_* codes; anything else
        // (the provider or the database unreachable) is an outage, not a refusal.
        const code = (error as { code?: unknown }).code;
        failure = request.query.error
          ? 'provider'
          : typeof code === 'string' && code.startsWith('OAUTH_')
            ? 'refused'
            : 'unavailable';
      }
    }
    this.logger.warn(`SSO sign-in refused: ${reason}`);
    await this.identity
      .recordFailedSignIn('sso', reason, origin)
      .catch((error: Error) =>
        this.logger.error(`a failed sign-in's audit row could not be written: ${error.message}`),
      );
    this.back(response, failure);
  }

  private assertSso(): void {
    assertDashboardEnabled(this.settings);
    if (!this.settings.sso)
      throw new GatewayException('not_found', {
        message: 'SSO is not configured: set OIDC_ISSUER_URL and OIDC_CLIENT_ID.',
      });
  }

  /** Back to the sign-in page, which explains the failure. */
  private back(response: Response, failure: SignInFailure): void {
    response.redirect(303, `/dashboard?sign_in_error=${failure}`);
  }
}
