import { ConfigService } from '@nestjs/config';

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

export function dashboardSettingsFrom(config: ConfigService): DashboardSettings {
  const baseUrl = config.get<string>('PUBLIC_BASE_URL');
  return {
    adminKey: config.get<string>('ADMIN_API_KEY') || null,
    publicBaseUrl: baseUrl ? baseUrl.replace(/\/+$/, '') : null,
    sessionIdleMs: config.get<number>('DASHBOARD_SESSION_IDLE_MS') ?? 1_800_000,
    rateLimit: config.get<number>('DASHBOARD_RATE_LIMIT') ?? 10,
    rateWindowMs: config.get<number>('DASHBOARD_RATE_WINDOW_MS') ?? 10_000,
    signInFailureLimit: config.get<number>('DASHBOARD_SIGNIN_FAILURE_LIMIT') ?? 5,
    signInFailureWindowMs: config.get<number>('DASHBOARD_SIGNIN_FAILURE_WINDOW_MS') ?? 900_000,
  };
}
