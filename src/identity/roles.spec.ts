import { groupsFromClaims, parseRole, parseRoleMap, roleName, rolesForGroups } from './roles';

describe('roles from groups', () => {
  it('parses the four roles and refuses anything else with the group named', () => {
    expect(parseRole('admin')).toEqual({ kind: 'admin' });
    expect(parseRole('team_admin:Team A')).toEqual({ kind: 'team_admin', team: 'Team A' });
    expect(() => parseRole('team_admin:')).toThrow('is not a role');
    expect(() => parseRole('root')).toThrow('is not a role');
    expect(() => parseRoleMap('{"ops":"owner"}')).toThrow('OIDC_ROLES["ops"]');
    expect(() => parseRoleMap('["admin"]')).toThrow('JSON object');
    expect(() => parseRoleMap('{nope')).toThrow('JSON object');
    expect(() => parseRoleMap('{"ops":[]}')).toThrow('OIDC_ROLES["ops"]');
    expect(parseRoleMap(undefined).size).toBe(0);
  });

  it('gives the union of every mapped group, each role once; unmapped groups give nothing', () => {
    const map = parseRoleMap(
      JSON.stringify({
        leads: 'team_admin:alpha',
        staff: 'member',
        audit: ['viewer', 'member'],
        'other-leads': 'team_admin:alpha',
      }),
    );
    expect(
      rolesForGroups(['leads', 'audit', 'other-leads', 'cafeteria'], map).map(roleName),
    ).toEqual(['team_admin:alpha', 'viewer', 'member']);
    expect(rolesForGroups(['cafeteria'], map)).toEqual([]);
  });

  it('reads the groups claim by name, or by a dotted path when no claim has that name', () => {
    expect(groupsFromClaims({ groups: ['a', 'b', 3] }, 'groups')).toEqual(['a', 'b']);
    expect(groupsFromClaims({ groups: 'a' }, 'groups')).toEqual(['a']);
    expect(groupsFromClaims({}, 'groups')).toEqual([]);
    expect(groupsFromClaims({ realm_access: { roles: ['x'] } }, 'realm_access.roles')).toEqual([
      'x',
    ]);
    expect(
      groupsFromClaims({ 'https://example.com/groups': ['y'] }, 'https://example.com/groups'),
    ).toEqual(['y']);
  });
});
