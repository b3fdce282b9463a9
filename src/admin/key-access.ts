import type { Access } from '../identity/access';

export const KEY_OF_ANOTHER =
  'This key is outside your role: it belongs to another team, or to another member.';

/** The admin API and the dashboard refuse a creation the same way. */
export function assertMayCreateKey(access: Access, teamId: string | null | undefined): void {
  access.assert(
    access.canCreateKey(teamId),
    teamId
      ? 'Your role may not create keys in this team.'
      : 'Your role creates keys in a team: give the team_id of a team you administer.',
  );
}
