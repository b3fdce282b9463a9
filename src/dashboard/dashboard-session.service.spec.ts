import { ADMIN_KEY_PRINCIPAL } from '../identity/principal';
import { DashboardSessionService } from './dashboard-session.service';
import type { DashboardSettings } from './dashboard-settings';

const settings = { sessionIdleMs: 60_000, sessionMaxMs: 3_600_000 } as DashboardSettings;

describe('DashboardSessionService', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('finds a session by its cookie secret, which it does not keep', () => {
    const sessions = new DashboardSessionService(settings);
    const { secret, session } = sessions.create(ADMIN_KEY_PRINCIPAL);
    expect(session.id).not.toBe(secret);
    expect(sessions.touch(secret)).toBe(session);
    expect(sessions.touch(`${secret}x`)).toBeUndefined();
    expect(sessions.touch(undefined)).toBeUndefined();
  });

  it('ends a session after the idle time; each request restarts the timer', () => {
    const sessions = new DashboardSessionService(settings);
    const { secret } = sessions.create(ADMIN_KEY_PRINCIPAL);
    jest.advanceTimersByTime(59_000);
    expect(sessions.touch(secret)).toBeDefined();
    jest.advanceTimersByTime(59_000);
    expect(sessions.touch(secret)).toBeDefined();
    jest.advanceTimersByTime(60_000);
    expect(sessions.touch(secret)).toBeUndefined();
    jest.advanceTimersByTime(0);
    expect(sessions.touch(secret)).toBeUndefined();
  });

  it('ends a session in constant use once its absolute lifetime from sign-in has passed', () => {
    const sessions = new DashboardSessionService(settings);
    const { secret } = sessions.create(ADMIN_KEY_PRINCIPAL);
    // A request every 30 s, well inside the idle time, for just under an hour...
    for (let elapsed = 0; elapsed < 3_570_000; elapsed += 30_000) {
      jest.advanceTimersByTime(30_000);
      expect(sessions.touch(secret)).toBeDefined();
    }
    // ...and the next one, an hour after sign-in, finds the session over.
    jest.advanceTimersByTime(30_000);
    expect(sessions.touch(secret)).toBeUndefined();
    // A new sign-in starts a new lifetime.
    expect(sessions.touch(sessions.create(ADMIN_KEY_PRINCIPAL).secret)).toBeDefined();
  });

  it('ends the session a refused cookie names', () => {
    const sessions = new DashboardSessionService(settings);
    const { secret } = sessions.create(ADMIN_KEY_PRINCIPAL);
    sessions.endBySecret('not-a-session');
    expect(sessions.touch(secret)).toBeDefined();
    sessions.endBySecret(secret);
    expect(sessions.touch(secret)).toBeUndefined();
  });

  it('keeps who signed in, and the ID token for the provider’s logout', () => {
    const sessions = new DashboardSessionService(settings);
    const user = { ...ADMIN_KEY_PRINCIPAL, kind: 'user' as const, userId: 'u1', roles: [] };
    const { secret } = sessions.create(user, 'id.token.value');
    expect(sessions.touch(secret)).toMatchObject({ principal: user, idToken: 'id.token.value' });
    expect(sessions.touch(sessions.create(ADMIN_KEY_PRINCIPAL).secret)?.idToken).toBeNull();
  });

  it('ends a session on sign-out', () => {
    const sessions = new DashboardSessionService(settings);
    const { secret, session } = sessions.create(ADMIN_KEY_PRINCIPAL);
    sessions.end(session);
    expect(sessions.touch(secret)).toBeUndefined();
  });

  it('compares CSRF tokens exactly', () => {
    const { session } = new DashboardSessionService(settings).create(ADMIN_KEY_PRINCIPAL);
    expect(DashboardSessionService.csrfMatches(session, session.csrfToken)).toBe(true);
    expect(DashboardSessionService.csrfMatches(session, session.csrfToken.slice(1))).toBe(false);
    expect(DashboardSessionService.csrfMatches(session, undefined)).toBe(false);
    expect(DashboardSessionService.csrfMatches(session, '')).toBe(false);
  });
});
