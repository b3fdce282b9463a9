import { Transform } from 'class-transformer';
import {
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MinLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { emptyToUndefined, IntSetting } from './env-transforms';
import { parseTrustProxy } from './trust-proxy';

/**
 * Who may reach the admin API and the dashboard, and how (the admin key, sessions, SSO in
 * docs/sso.md, the audit log's retention): a part of AppConfig kept in a file of its own.
 * AppConfig extends it, so these are validated with every other setting, once.
 */
export class AdminAccessSettings {
  /** Admin credential for the /admin API; the admin API is off when it is unset. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(16)
  ADMIN_API_KEY?: string;

  /**
   * Failed admin API credentials (a wrong admin key, a refused bearer token) per client address
   * per ADMIN_AUTH_FAILURE_WINDOW_MS; beyond it a wrong credential gets 429, a right one passes.
   */
  @IntSetting(1, 1_000_000)
  ADMIN_AUTH_FAILURE_LIMIT = 10;

  @IntSetting(1_000, 86_400_000)
  ADMIN_AUTH_FAILURE_WINDOW_MS = 900_000;

  /**
   * How to find the client's address behind proxies, as Express's `trust proxy` (hop count,
   * or addresses and CIDR subnets); unset: the socket's peer. See parseTrustProxy.
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && trustProxyError(value) === null,
      defaultMessage: (args) => trustProxyError(String(args?.value)) ?? '',
    },
  })
  TRUST_PROXY?: string;

  /** The gateway's public origin (e.g. https://llm.example.com); the dashboard shows `<it>/v1`. Default: the request's host. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  PUBLIC_BASE_URL?: string;

  /** A dashboard session ends after this long without a request. */
  @IntSetting(1_000, 86_400_000)
  DASHBOARD_SESSION_IDLE_MS = 1_800_000;

  /** A dashboard session ends this long after sign-in, however busy (default 12 h; at most 30 days). */
  @IntSetting(1_000, 2_592_000_000)
  DASHBOARD_SESSION_MAX_MS = 43_200_000;

  /** Dashboard API calls allowed per session per DASHBOARD_RATE_WINDOW_MS (default 10 per 10 s). */
  @IntSetting(1, 1_000_000)
  DASHBOARD_RATE_LIMIT = 10;

  @IntSetting(1_000, 3_600_000)
  DASHBOARD_RATE_WINDOW_MS = 10_000;

  /** Failed dashboard sign-ins per client address per window; a right key always signs in. */
  @IntSetting(1, 1_000_000)
  DASHBOARD_SIGNIN_FAILURE_LIMIT = 5;

  @IntSetting(1_000, 86_400_000)
  DASHBOARD_SIGNIN_FAILURE_WINDOW_MS = 900_000;

  /** The admin key may be exchanged for a dashboard session; `off` leaves SSO as the only way in. */
  @IsIn(['on', 'off'])
  DASHBOARD_ADMIN_KEY_SIGNIN: 'on' | 'off' = 'on';

  /** OpenID provider for dashboard SSO and admin API bearer tokens (docs/sso.md); unset: off. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OIDC_ISSUER_URL?: string;

  /** Required with OIDC_ISSUER_URL. */
  @Transform(emptyToUndefined)
  @ValidateIf(
    (config: AdminAccessSettings) =>
      config.OIDC_ISSUER_URL !== undefined || config.OIDC_CLIENT_ID !== undefined,
  )
  @IsString({ message: 'OIDC_CLIENT_ID is required with OIDC_ISSUER_URL' })
  @IsNotEmpty({ message: 'OIDC_CLIENT_ID is required with OIDC_ISSUER_URL' })
  OIDC_CLIENT_ID?: string;

  /** Unset for a public client (PKCE only). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OIDC_CLIENT_SECRET?: string;

  /** Scopes asked at sign-in; add `groups` where the provider needs it. */
  @Matches(/(^|\s)openid(\s|$)/, { message: 'OIDC_SCOPES must include openid' })
  OIDC_SCOPES = 'openid email profile';

  /** The claim (or dotted path) holding the groups OIDC_ROLES maps to roles. */
  @IsString()
  @IsNotEmpty()
  OIDC_GROUPS_CLAIM = 'groups';

  /** JSON object from group to role; each role is checked when the identity module starts. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\s*\{[\s\S]*\}\s*$/, {
    message: 'OIDC_ROLES must be a JSON object from group to role',
  })
  OIDC_ROLES?: string;

  /** The audience admin API bearer tokens must carry; default OIDC_CLIENT_ID (ID tokens). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OIDC_API_AUDIENCE?: string;

  /** Days of audit rows kept; 0 keeps them all. */
  @IntSetting(0, 36_500)
  AUDIT_RETENTION_DAYS = 365;
}

function trustProxyError(value: string): string | null {
  try {
    parseTrustProxy(value);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
