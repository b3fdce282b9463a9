import { Access } from './access';
import type { Principal } from './principal';
import { parseRole } from './roles';

const user = (...roles: string[]): Principal => ({
  kind: 'user',
  userId: 'u1',
  email: 'u1@example.com',
  name: 'U1',
  roles: roles.map(parseRole),
});
const teamA = 'team-a-id';
const teamB = 'team-b-id';
const mine = { teamId: null, ownerUserId: 'u1' };
const someoneElses = { teamId: null, ownerUserId: 'u2' };
const inA = { teamId: teamA, ownerUserId: null };
const inB = { teamId: teamB, ownerUserId: null };

describe('Access', () => {
  it('admin: everything', () => {
    const access = new Access(user('admin'), new Set());
    expect(
      access.can('teams.write') && access.can('audit.read') && access.can('config.reload'),
    ).toBe(true);
    expect(
      access.canWriteKey(inB) && access.canUpdateKey(inA, teamB) && access.canCreateKey(teamB),
    ).toBe(true);
  });

  it('viewer: reads everything, changes nothing', () => {
    const access = new Access(user('viewer'), new Set());
    expect(access.readsAll && access.canReadKey(inB) && access.canReadTeam(teamB)).toBe(true);
    expect(access.can('audit.read')).toBe(true);
    for (const capability of ['keys.write', 'keys.update', 'teams.write', 'config.reload'] as const)
      expect(access.can(capability)).toBe(false);
    expect(access.canWriteKey(inA) || access.canCreateKey(null)).toBe(false);
  });

  it("team_admin: that team's keys and budgets only, never moved out of it", () => {
    const access = new Access(user('team_admin:a'), new Set([teamA]));
    expect(
      access.canReadKey(inA) && access.canWriteKey(inA) && access.canUpdateKey(inA, undefined),
    ).toBe(true);
    expect(
      access.canReadKey(inB) || access.canWriteKey(inB) || access.canUpdateKey(inB, teamA),
    ).toBe(false);
    expect(access.canUpdateKey(inA, teamB) || access.canUpdateKey(inA, null)).toBe(false);
    expect(access.canCreateKey(teamA)).toBe(true);
    expect(access.canCreateKey(teamB) || access.canCreateKey(null)).toBe(false);
    expect(access.canReadTeam(teamA) && !access.canReadTeam(teamB)).toBe(true);
    expect(access.can('teams.write') || access.can('audit.read')).toBe(false);
  });

  it('member: creates keys without a team, rotates and revokes their own, nothing else', () => {
    const access = new Access(user('member'), new Set());
    expect(access.canReadKey(mine) && access.canWriteKey(mine) && access.canCreateKey(null)).toBe(
      true,
    );
    expect(access.canReadKey(someoneElses) || access.canWriteKey(someoneElses)).toBe(false);
    expect(access.canUpdateKey(mine, undefined) || access.can('keys.update')).toBe(false);
    expect(access.canCreateKey(teamA) || access.canReadKey(inA)).toBe(false);
  });

  it('several roles: the union', () => {
    const access = new Access(user('viewer', 'member', 'team_admin:a'), new Set([teamA]));
    expect(access.canReadKey(inB) && access.canWriteKey(mine) && access.canWriteKey(inA)).toBe(
      true,
    );
    expect(access.canWriteKey(inB) || access.canWriteKey(someoneElses)).toBe(false);
  });

  it('no mapped group: nothing at all', () => {
    const access = new Access(user(), new Set());
    expect(access.none).toBe(true);
    expect(access.can('overview.read') || access.canReadKey(mine)).toBe(false);
    expect(() => access.assert(false)).toThrow('Your role does not allow this.');
  });
});
