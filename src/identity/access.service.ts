import { Injectable } from '@nestjs/common';
import { TeamsService } from '../teams/teams.service';
import { Access } from './access';
import type { Principal } from './principal';

/** Builds a principal's Access: its team_admin roles name teams, resolved to ids per request. */
@Injectable()
export class AccessService {
  constructor(private readonly teams: TeamsService) {}

  async accessFor(principal: Principal): Promise<Access> {
    const names = new Set(
      principal.roles.flatMap((role) => (role.kind === 'team_admin' ? [role.team] : [])),
    );
    if (names.size === 0) return new Access(principal, new Set());
    // A role naming a team that does not exist (yet) gives nothing.
    const ids = (await this.teams.list()).filter((team) => names.has(team.name)).map((t) => t.id);
    return new Access(principal, new Set(ids));
  }
}
