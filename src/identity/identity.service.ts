import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { AuditScope, AuditTarget } from '../audit/audit.types';
import { PrismaService } from '../database/prisma.service';
import { AdminUserClaims, AdminUsersRepository } from './admin-users.repository';
import { IdentitySettings } from './identity-settings';
import { OidcClient, SignInResult } from './oidc-client.service';
import { auditActorOf, type Principal } from './principal';
import { groupsFromClaims, roleName, rolesForGroups } from './roles';

/** Sign-ins, failed sign-ins and sign-outs are recorded against the dashboard. */
export const DASHBOARD_TARGET: AuditTarget = { type: 'dashboard', id: null, name: null };

/** Where a request came from, for its audit row (an actor in it is replaced). */
export type RequestOrigin = Pick<AuditScope, 'sourceIp' | 'requestId'>;

export type SignInMethod = 'admin_key' | 'sso';

/**
 * People and service accounts of the identity provider: a user row created at their first sign-in
 * (or first bearer token) and refreshed each time, with roles re-read from the groups claim.
 */
@Injectable()
export class IdentityService {
  constructor(
    @Inject(IdentitySettings) private readonly settings: IdentitySettings,
    private readonly oidc: OidcClient,
    private readonly users: AdminUsersRepository,
    private readonly audit: AuditService,
    private readonly prisma: PrismaService,
  ) {}

  /**
   * After a verified callback: the user row and the sign-in's audit row in one transaction, so a
   * sign-in without its row cannot happen. No mapped group gives a principal without roles.
   */
  signIn(result: SignInResult, origin: RequestOrigin): Promise<Principal> {
    const profile = this.profileOf(result.claims);
    return this.prisma.$transaction(async (tx) => {
      const user = await this.users.upsert(profile, { signIn: true, tx });
      const principal = this.principal(user.id, profile);
      await this.audit.record(
        tx,
        {
          action: 'auth.sign_in',
          target: DASHBOARD_TARGET,
          after: { method: 'sso', name: profile.name, roles: profile.roles },
        },
        { ...origin, actor: auditActorOf(principal) },
      );
      return principal;
    });
  }

  /** A bearer JWT on the admin API, verified; the user row is created or refreshed. */
  async principalFromBearer(token: string): Promise<Principal> {
    const profile = this.profileOf(await this.oidc.verifyBearer(token));
    const user = await this.users.upsert(profile, { signIn: false });
    return this.principal(user.id, profile);
  }

  recordAdminKeySignIn(principal: Principal, origin: RequestOrigin): Promise<void> {
    return this.audit.recordAlone(
      { action: 'auth.sign_in', target: DASHBOARD_TARGET, after: { method: 'admin_key' } },
      { ...origin, actor: auditActorOf(principal) },
    );
  }

  /** A refused sign-in: nobody is known, so the actor is anonymous; `reason` says why. */
  recordFailedSignIn(method: SignInMethod, reason: string, origin: RequestOrigin): Promise<void> {
    return this.audit.recordAlone(
      { action: 'auth.sign_in_failed', target: DASHBOARD_TARGET, after: { method, reason } },
      { ...origin, actor: { type: 'anonymous', id: null, email: null } },
    );
  }

  recordSignOut(principal: Principal, origin: RequestOrigin): Promise<void> {
    return this.audit.recordAlone(
      { action: 'auth.sign_out', target: DASHBOARD_TARGET },
      { ...origin, actor: auditActorOf(principal) },
    );
  }

  private principal(userId: string, profile: AdminUserClaims): Principal {
    const { roles } = this.settings.oidc!;
    return {
      kind: 'user',
      userId,
      email: profile.email,
      name: profile.name,
      roles: rolesForGroups(profile.groups, roles),
    };
  }

  private profileOf(claims: Record<string, unknown>): AdminUserClaims {
    const oidc = this.settings.oidc!;
    const groups = groupsFromClaims(claims, oidc.groupsClaim);
    const text = (name: string) =>
      typeof claims[name] === 'string' ? (claims[name] as string) : null;
    return {
      issuer: String(claims.iss),
      subject: String(claims.sub),
      email: text('email'),
      // Service accounts have no name; their client id tells them apart in the audit log.
      name: text('name') ?? text('preferred_username') ?? text('client_id') ?? text('azp'),
      groups,
      roles: rolesForGroups(groups, oidc.roles).map(roleName),
    };
  }
}
