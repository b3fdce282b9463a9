/** Who made a change (docs/sso.md, "Audit log"). */
export type AuditActorType = 'user' | 'admin_key' | 'cli' | 'system' | 'anonymous';

export interface AuditActor {
  type: AuditActorType;
  /** admin_users.id for a user; the operating-system user for the CLI; null otherwise. */
  id: string | null;
  email: string | null;
}

/** Where a change came from: the actor, and for HTTP the client's address and the request id. */
export interface AuditScope {
  actor: AuditActor;
  sourceIp: string | null;
  requestId: string | null;
}

export const AUDIT_ACTIONS = [
  'key.create',
  'key.update',
  'key.rotate',
  'key.revoke',
  'key.seed',
  'team.create',
  'team.update',
  'team.delete',
  'config.reload',
  'auth.sign_in',
  'auth.sign_in_failed',
  'auth.sign_out',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditTarget {
  type: 'key' | 'team' | 'config' | 'dashboard';
  id: string | null;
  name: string | null;
}

/** One change: `before` and `after` hold the fields that changed (null for a creation or deletion). */
export interface AuditChange {
  action: AuditAction;
  target: AuditTarget;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** An audit row as the API shows it. */
export interface AuditEntry {
  id: string;
  createdAt: Date;
  actor: AuditActor;
  action: string;
  target: { type: string | null; id: string | null; name: string | null };
  before: unknown;
  after: unknown;
  sourceIp: string | null;
  requestId: string | null;
}

export const SYSTEM_ACTOR: AuditActor = { type: 'system', id: null, email: null };

/** The scope of changes made with no caller to name: the gateway itself, or the CLI process. */
export const AUDIT_DEFAULT_SCOPE = Symbol('AUDIT_DEFAULT_SCOPE');
