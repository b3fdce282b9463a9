import type { AppConfig } from '../config/app-config';
import type { FailureLimit } from './credential-failures';
import { parseRoleMap, type RoleMap } from './roles';

/** The identity provider the dashboard signs in with and whose tokens the admin API accepts. */
export interface OidcSettings {
  /** OIDC_ISSUER_URL, as written: its discovery document is `<it>/.well-known/openid-configuration`. */
  issuerUrl: string;
  clientId: string;
  /** Null for a public client (PKCE alone). */
  clientSecret: string | null;
  scopes: string;
  groupsClaim: string;
  roles: RoleMap;
  /** The audience a bearer token must carry: OIDC_API_AUDIENCE, else the client id. */
  apiAudience: string;
}

export interface IdentitySettings {
  /** ADMIN_API_KEY; null when unset. */
  adminKey: string | null;
  /** Null when OIDC_ISSUER_URL is unset: no SSO, no bearer JWTs. */
  oidc: OidcSettings | null;
  /** The admin key may be exchanged for a dashboard session (DASHBOARD_ADMIN_KEY_SIGNIN). */
  adminKeySignIn: boolean;
  /** Failed admin API credentials per client address (ADMIN_AUTH_FAILURE_*). */
  adminApiFailures: FailureLimit;
}

export const IdentitySettings = Symbol('IdentitySettings');

/** Read once at boot; a bad OIDC_ROLES stops the start with one line naming the group. */
export function identitySettingsFrom(config: AppConfig): IdentitySettings {
  let roles: RoleMap;
  try {
    roles = parseRoleMap(config.OIDC_ROLES);
  } catch (error) {
    throw new Error(`Invalid environment: ${(error as Error).message}`, { cause: error });
  }
  const { OIDC_ISSUER_URL: issuerUrl, OIDC_CLIENT_ID: clientId } = config;
  return {
    adminKey: config.ADMIN_API_KEY ?? null,
    adminKeySignIn: config.DASHBOARD_ADMIN_KEY_SIGNIN !== 'off',
    adminApiFailures: {
      door: 'admin-api',
      limit: config.ADMIN_AUTH_FAILURE_LIMIT,
      windowMs: config.ADMIN_AUTH_FAILURE_WINDOW_MS,
    },
    oidc:
      issuerUrl && clientId
        ? {
            issuerUrl,
            clientId,
            clientSecret: config.OIDC_CLIENT_SECRET ?? null,
            scopes: config.OIDC_SCOPES,
            groupsClaim: config.OIDC_GROUPS_CLAIM,
            roles,
            apiAudience: config.OIDC_API_AUDIENCE ?? clientId,
          }
        : null,
  };
}
