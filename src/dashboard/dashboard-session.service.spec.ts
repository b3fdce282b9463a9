import { DashboardSessionService } from './dashboard-session.service';
import type { DashboardSettings } from './dashboard-settings';

const settings = { sessionIdleMs: 60_000 } as DashboardSettings;

describe('DashboardSessionService', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('finds a session by its cookie secret, which it does not keep', () => {
    const sessions = new DashboardSessionService(settings);
    const { secret, session } = sessions.create();
    expect(session.id).not.toBe(secret);
    expect(sessions.touch(secret)).toBe(session);
    expect(sessions.touch(`${secret}x`)).toBeUndefined();
    expect(sessions.touch(undefined)).toBeUndefined();
  });

  it('ends a session after the idle time; each request restarts the timer', () => {
    const sessions = new DashboardSessionService(settings);
    const { secret } = sessions.create();
    jest.advanceTimersByTime(59_000);
    expect(sessions.touch(secret)).toBeDefined();
    jest.advanceTimersByTime(59_000);
    expect(sessions.touch(secret)).toBeDefined();
    jest.advanceTimersByTime(60_000);
    expect(sessions.touch(secret)).toBeUndefined();
    jest.advanceTimersByTime(0);
    expect(sessions.touch(secret)).toBeUndefined();
  });

  it('ends a session on sign-out', () => {
    const sessions = new DashboardSessionService(settings);
    const { secret, session } = sessions.create();
    sessions.end(session);
    expect(sessions.touch(secret)).toBeUndefined();
  });

  it('compares CSRF tokens exactly', () => {
    const { session } = new DashboardSessionService(settings).create();
    expect(DashboardSessionService.csrfMatches(session, session.csrfToken)).toBe(true);
    expect(DashboardSessionService.csrfMatches(session, session.csrfToken.slice(1))).toBe(false);
    expect(DashboardSessionService.csrfMatches(session, undefined)).toBe(false);
    expect(DashboardSessionService.csrfMatches(session, '')).toBe(false);
  });
});
