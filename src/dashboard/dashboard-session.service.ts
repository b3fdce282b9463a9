import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../identity/principal';
import { DashboardSettings } from './dashboard-settings';

export interface DashboardSession {
  /** Hash of the cookie value: the identifier for rate limits and logs, never the secret itself. */
  id: string;
  csrfToken: string;
  /** Sign-in time: the session ends DASHBOARD_SESSION_MAX_MS after it, however busy. */
  createdAt: number;
  lastSeenAt: number;
  /** Who signed in, with the roles read at sign-in. */
  principal: Principal;
  /** The SSO sign-in's ID token, the hint for the provider's logout; null for the admin key. */
  idToken: string | null;
}

/**
 * Server-side dashboard sessions, kept in this process's memory: the cookie holds only a random
 * id, so signing out or an expiry ends a session for good. A session ends after
 * DASHBOARD_SESSION_IDLE_MS without a request and DASHBOARD_SESSION_MAX_MS after sign-in, so a
 * stolen cookie in constant use still stops working. A restart signs everyone out, which for an
 * admin page is a fair price for not storing sessions anywhere.
 */
@Injectable()
export class DashboardSessionService {
  private readonly sessions = new Map<string, DashboardSession>();

  constructor(@Inject(DashboardSettings) private readonly settings: DashboardSettings) {}

  private now(): number {
    return Date.now();
  }

  get idleMs(): number {
    return this.settings.sessionIdleMs;
  }

  /** A new session; the returned secret goes into the cookie and is not kept. */
  create(
    principal: Principal,
    idToken: string | null = null,
  ): { secret: string; session: DashboardSession } {
    this.sweep();
    const secret = randomBytes(32).toString('base64url');
    const now = this.now();
    const session = {
      id: hash(secret),
      csrfToken: randomBytes(32).toString('base64url'),
      createdAt: now,
      lastSeenAt: now,
      principal,
      idToken,
    };
    this.sessions.set(session.id, session);
    return { secret, session };
  }

  /** The live session for a cookie value, its idle timer restarted; undefined when none. */
  touch(secret: string | undefined): DashboardSession | undefined {
    if (!secret) return undefined;
    const session = this.sessions.get(hash(secret));
    if (!session) return undefined;
    const now = this.now();
    if (this.expired(session, now)) {
      this.sessions.delete(session.id);
      return undefined;
    }
    session.lastSeenAt = now;
    return session;
  }

  end(session: DashboardSession): void {
    this.sessions.delete(session.id);
  }

  /** Ends the session a cookie value names, if any (a refused duplicated cookie). */
  endBySecret(secret: string): void {
    this.sessions.delete(hash(secret));
  }

  static csrfMatches(session: DashboardSession, presented: string | undefined): boolean {
    if (!presented) return false;
    return timingSafeEqual(
      createHash('sha256').update(presented).digest(),
      createHash('sha256').update(session.csrfToken).digest(),
    );
  }

  private expired(session: DashboardSession, now: number): boolean {
    return (
      now - session.lastSeenAt >= this.settings.sessionIdleMs ||
      now - session.createdAt >= this.settings.sessionMaxMs
    );
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, session] of this.sessions)
      if (this.expired(session, now)) this.sessions.delete(id);
  }
}

function hash(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
