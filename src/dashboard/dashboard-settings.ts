import type { Request } from 'express';
import type { AppConfig } from '../config/app-config';

/** The dashboard's knobs, read once from the validated environment. */
export interface DashboardSettings {
  /** The admin key the sign-in form exchanges for a session. */
  adminKey: string | null;
  /** OIDC_ISSUER_URL is set: "Sign in with SSO" (docs/sso.md). */
  sso: boolean;
  /** The admin key may still be typed in (DASHBOARD_ADMIN_KEY_SIGNIN, on by default). */
  adminKeySignIn: boolean;
  /** `<PUBLIC_BASE_URL>` without a trailing slash; null derives it from the request's host. */
  publicBaseUrl: string | null;
  sessionIdleMs: number;
  /** The absolute lifetime of a session, from sign-in. */
  sessionMaxMs: number;
  rateLimit: number;
  rateWindowMs: number;
  signInFailureLimit: number;
  signInFailureWindowMs: number;
}

export const DashboardSettings = Symbol('DashboardSettings');

export function dashboardSettingsFrom(config: AppConfig): DashboardSettings {
  const baseUrl = config.PUBLIC_BASE_URL;
  const adminKey = config.ADMIN_API_KEY || null;
  return {
    adminKey,
    sso: Boolean(config.OIDC_ISSUER_URL),
    adminKeySignIn: adminKey !== null && config.DASHBOARD_ADMIN_KEY_SIGNIN !== 'off',
    publicBaseUrl: baseUrl ? baseUrl.replace(/\/+$/, '') : null,
    sessionIdleMs: config.DASHBOARD_SESSION_IDLE_MS,
    sessionMaxMs: config.DASHBOARD_SESSION_MAX_MS,
    rateLimit: config.DASHBOARD_RATE_LIMIT,
    rateWindowMs: config.DASHBOARD_RATE_WINDOW_MS,
    signInFailureLimit: config.DASHBOARD_SIGNIN_FAILURE_LIMIT,
    signInFailureWindowMs: config.DASHBOARD_SIGNIN_FAILURE_WINDOW_MS,
  };
}

/**
 * `<PUBLIC_BASE_URL>`, else the request's own origin. Set PUBLIC_BASE_URL behind a proxy: the
 * SSO redirect URI registered at the provider is built from it.
 */
export function dashboardOrigin(settings: DashboardSettings, request: Request): string {
  return settings.publicBaseUrl ?? `${request.protocol}://${request.headers.host ?? 'localhost'}`;
}
