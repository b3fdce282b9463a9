import type { AppConfig } from '../config/app-config';

/** The dashboard's knobs, read once from the validated environment. */
export interface DashboardSettings {
  /** The admin key the sign-in form exchanges for a session; the dashboard is off without it. */
  adminKey: string | null;
  /** `<PUBLIC_BASE_URL>` without a trailing slash; null derives it from the request's host. */
  publicBaseUrl: string | null;
  sessionIdleMs: number;
  rateLimit: number;
  rateWindowMs: number;
  signInFailureLimit: number;
  signInFailureWindowMs: number;
}

export const DashboardSettings = Symbol('DashboardSettings');

export function dashboardSettingsFrom(config: AppConfig): DashboardSettings {
  const baseUrl = config.PUBLIC_BASE_URL;
  return {
    adminKey: config.ADMIN_API_KEY || null,
    publicBaseUrl: baseUrl ? baseUrl.replace(/\/+$/, '') : null,
    sessionIdleMs: config.DASHBOARD_SESSION_IDLE_MS,
    rateLimit: config.DASHBOARD_RATE_LIMIT,
    rateWindowMs: config.DASHBOARD_RATE_WINDOW_MS,
    signInFailureLimit: config.DASHBOARD_SIGNIN_FAILURE_LIMIT,
    signInFailureWindowMs: config.DASHBOARD_SIGNIN_FAILURE_WINDOW_MS,
  };
}
