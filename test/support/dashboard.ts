import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { ADMIN_KEY } from './admin';

/** Builds the dashboard's static files (as `npm run build` does) before a gateway starts. */
export function buildDashboard(): void {
  execFileSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'build-dashboard.js')], {
    stdio: 'ignore',
  });
}

export interface DashboardSessionCookie {
  cookie: string;
  csrf: string;
  setCookie: string;
}

/** Signs in through the dashboard API; returns the cookie to send back and the CSRF token. */
export async function dashboardSignIn(
  baseUrl: string,
  adminKey = ADMIN_KEY,
): Promise<DashboardSessionCookie> {
  const response = await request(baseUrl)
    .post('/dashboard/api/session')
    .send({ admin_key: adminKey });
  if (response.status !== 200)
    throw new Error(`sign-in failed: ${response.status} ${JSON.stringify(response.body)}`);
  // The session's own cookie, not one that expires a stray cookie of the same name.
  const setCookie = ([] as string[])
    .concat(response.headers['set-cookie'] ?? [])
    .find(
      (line) => line.startsWith('gateway_dashboard=') && !line.startsWith('gateway_dashboard=;'),
    )!;
  return { cookie: setCookie.split(';')[0], csrf: response.body.csrf_token, setCookie };
}
