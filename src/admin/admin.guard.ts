import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { GatewayException } from '../common/errors/gateway.exception';
import type { Capability } from '../identity/access';
import { AccessService } from '../identity/access.service';
import { CredentialFailures } from '../identity/credential-failures';
import { REQUIRES } from '../identity/current-access.decorator';
import { IdentitySettings } from '../identity/identity-settings';
import { IdentityService } from '../identity/identity.service';
import { ADMIN_KEY_PRINCIPAL, type Principal } from '../identity/principal';

/** Three base64url segments: a JWS in compact form. Anything else is an opaque token. */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The admin API's credential and role check (docs/admin-api.md, docs/sso.md).
 * `Authorization: Bearer` carries either ADMIN_API_KEY (every right; both sides hashed before the
 * constant-time comparison, so neither content nor length leaks through timing) or, with OIDC
 * configured, a JWT access token or ID token of the provider, whose groups give the roles. The
 * route's @Requires capability is then checked (403 permission_denied); the controllers narrow
 * it to the keys and teams in reach. Without ADMIN_API_KEY and OIDC the admin API does not exist (404).
 * A wrong credential counts against its client address's failure limit (CredentialFailures);
 * a right one is accepted whatever that count, and a request without one guesses nothing.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly expected: Buffer | null;

  constructor(
    @Inject(IdentitySettings) private readonly settings: IdentitySettings,
    private readonly identity: IdentityService,
    private readonly accessService: AccessService,
    private readonly failures: CredentialFailures,
    private readonly reflector: Reflector,
  ) {
    this.expected = settings.adminKey ? sha256(settings.adminKey) : null;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.expected && !this.settings.oidc)
      throw new GatewayException('not_found', {
        message: 'The admin API is disabled: set ADMIN_API_KEY or OIDC_ISSUER_URL to enable it.',
      });
    const request = context.switchToHttp().getRequest<Request>();
    const access = await this.accessService.accessFor(await this.authenticate(request));
    const required = this.reflector.getAllAndOverride<Capability | undefined>(REQUIRES, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!required || !access.can(required)) throw new GatewayException('permission_denied');
    request.access = access;
    return true;
  }

  private async authenticate(request: Request): Promise<Principal> {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!presented) throw this.wrongCredential();
    if (this.expected && timingSafeEqual(sha256(presented), this.expected))
      return ADMIN_KEY_PRINCIPAL;
    try {
      if (this.settings.oidc && JWT.test(presented))
        return await this.identity.principalFromBearer(presented);
      throw this.wrongCredential();
    } catch (error) {
      // A refused credential counts; the identity provider or the database failing does not.
      if (
        error instanceof GatewayException &&
        (error.code === 'invalid_admin_key' || error.code === 'invalid_admin_token')
      )
        throw (await this.failures.count(request, this.settings.adminApiFailures, error)).error;
      throw error;
    }
  }

  private wrongCredential(): GatewayException {
    return new GatewayException(
      'invalid_admin_key',
      this.settings.oidc
        ? {
            message:
              'Incorrect admin credential: neither the admin key nor a JWT of the identity provider. Opaque access tokens are not accepted; send a JWT access token or an ID token.',
          }
        : {},
    );
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
