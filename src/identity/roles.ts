/**
 * Roles a person or a service account gets from the identity provider's groups (docs/sso.md,
 * "Roles"): `admin` (everything), `viewer` (reads everything, changes nothing),
 * `team_admin:<team name>` (that team's keys, their budgets, and its spend) and `member` (keys
 * they created, and their usage). Several groups give the union.
 */
export type Role =
  | { kind: 'admin' }
  | { kind: 'viewer' }
  | { kind: 'team_admin'; team: string }
  | { kind: 'member' };

/** Group name to the roles it gives. */
export type RoleMap = ReadonlyMap<string, readonly Role[]>;

export function parseRole(text: string): Role {
  if (text === 'admin' || text === 'viewer' || text === 'member') return { kind: text };
  const team = /^team_admin:(.+)$/.exec(text)?.[1]?.trim();
  if (team) return { kind: 'team_admin', team };
  throw new Error(`"${text}" is not a role: use admin, viewer, member or team_admin:<team name>`);
}

export function roleName(role: Role): string {
  return role.kind === 'team_admin' ? `team_admin:${role.team}` : role.kind;
}

/**
 * OIDC_ROLES: a JSON object from group to role, e.g.
 * `{"gateway-admins":"admin","finance":"viewer","team-a-leads":"team_admin:team-a"}`; a value may
 * also be a list of roles. Throws a message naming the problem, for a start-up failure.
 */
export function parseRoleMap(json: string | undefined): RoleMap {
  if (!json?.trim()) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error('OIDC_ROLES must be a JSON object from group name to role', { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('OIDC_ROLES must be a JSON object from group name to role');
  const map = new Map<string, Role[]>();
  for (const [group, value] of Object.entries(parsed)) {
    const names = Array.isArray(value) ? value : [value];
    if (names.length === 0 || names.some((name) => typeof name !== 'string'))
      throw new Error(`OIDC_ROLES["${group}"] must be a role name or a list of role names`);
    try {
      map.set(group, (names as string[]).map(parseRole));
    } catch (error) {
      throw new Error(`OIDC_ROLES["${group}"]: ${(error as Error).message}`, { cause: error });
    }
  }
  return map;
}

/** The union of the roles of every mapped group, each role once; empty: no access. */
export function rolesForGroups(groups: readonly string[], map: RoleMap): Role[] {
  const roles = new Map<string, Role>();
  for (const group of groups)
    for (const role of map.get(group) ?? []) roles.set(roleName(role), role);
  return [...roles.values()];
}

/**
 * The groups in a token's claims. `claim` is a claim name (`groups`, or a namespaced one such as
 * `https://example.com/groups`), or a dotted path into nested claims when no claim has that exact
 * name (Keycloak's `realm_access.roles`). A list of strings, or one string.
 */
export function groupsFromClaims(claims: Record<string, unknown>, claim: string): string[] {
  let value: unknown = claims[claim];
  if (value === undefined && claim.includes('.')) {
    value = claim
      .split('.')
      .reduce<unknown>(
        (node, part) =>
          node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined,
        claims,
      );
  }
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}
