import { GatewayException } from '../common/errors/gateway.exception';
import type { Principal } from './principal';

/** What a route needs at least; Access narrows it further to the keys and teams in reach. */
export type Capability =
  | 'overview.read'
  | 'keys.read'
  /** Create keys, rotate and revoke them. */
  | 'keys.write'
  /** Change a key's settings (limits, budgets, team). */
  | 'keys.update'
  | 'teams.read'
  | 'teams.write'
  | 'usage.read'
  | 'audit.read'
  | 'config.reload';

const CAPABILITIES: Record<'admin' | 'viewer' | 'team_admin' | 'member', readonly Capability[]> = {
  admin: [
    'overview.read',
    'keys.read',
    'keys.write',
    'keys.update',
    'teams.read',
    'teams.write',
    'usage.read',
    'audit.read',
    'config.reload',
  ],
  viewer: ['overview.read', 'keys.read', 'teams.read', 'usage.read', 'audit.read'],
  team_admin: [
    'overview.read',
    'keys.read',
    'keys.write',
    'keys.update',
    'teams.read',
    'usage.read',
  ],
  member: ['overview.read', 'keys.read', 'keys.write', 'usage.read'],
};

export interface KeyRef {
  teamId: string | null;
  ownerUserId: string | null;
}

/**
 * A principal's rights, with its team_admin roles resolved to team ids. Each check is the union
 * over the principal's roles. Enforced on the server for every admin and dashboard call.
 */
export class Access {
  private readonly capabilities: ReadonlySet<Capability>;

  constructor(
    readonly principal: Principal,
    /** Ids of the teams the principal administers (team_admin roles naming existing teams). */
    readonly teamIds: ReadonlySet<string>,
  ) {
    this.capabilities = new Set(principal.roles.flatMap((role) => CAPABILITIES[role.kind]));
  }

  private has(kind: 'admin' | 'viewer' | 'member'): boolean {
    return this.principal.roles.some((role) => role.kind === kind);
  }

  /** No mapped group: a session that may only see who it is and sign out. */
  get none(): boolean {
    return this.principal.roles.length === 0;
  }

  get admin(): boolean {
    return this.has('admin');
  }

  /** Reads everything (admin or viewer); other roles see their teams' or their own things. */
  get readsAll(): boolean {
    return this.has('admin') || this.has('viewer');
  }

  can(capability: Capability): boolean {
    return this.capabilities.has(capability);
  }

  private owns(key: KeyRef): boolean {
    return (
      this.has('member') &&
      this.principal.userId !== null &&
      key.ownerUserId === this.principal.userId
    );
  }

  private administers(teamId: string | null | undefined): boolean {
    return !!teamId && this.teamIds.has(teamId);
  }

  canReadKey(key: KeyRef): boolean {
    return this.readsAll || this.administers(key.teamId) || this.owns(key);
  }

  /** Rotate and revoke. */
  canWriteKey(key: KeyRef): boolean {
    return this.admin || this.administers(key.teamId) || this.owns(key);
  }

  /** Settings, budgets and team; a team admin may move a key only between their own teams. */
  canUpdateKey(key: KeyRef, nextTeamId: string | null | undefined): boolean {
    if (this.admin) return true;
    return (
      this.administers(key.teamId) && (nextTeamId === undefined || this.administers(nextTeamId))
    );
  }

  /** A member's keys have no team (a team's budget is its admins' to hand out). */
  canCreateKey(teamId: string | null | undefined): boolean {
    return this.admin || this.administers(teamId) || (!teamId && this.has('member'));
  }

  canReadTeam(teamId: string): boolean {
    return this.readsAll || this.administers(teamId);
  }

  assert(allowed: boolean, message?: string): void {
    if (!allowed) throw new GatewayException('permission_denied', message ? { message } : {});
  }
}
