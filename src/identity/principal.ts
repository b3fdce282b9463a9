import type { Request } from 'express';
import type { AuditActor, AuditScope } from '../audit/audit.types';
import type { Role } from './roles';

/** Who is calling the admin API or using the dashboard. */
export interface Principal {
  kind: 'admin_key' | 'user';
  /** admin_users.id; null for the admin key. */
  userId: string | null;
  email: string | null;
  name: string | null;
  roles: Role[];
}

/** ADMIN_API_KEY, on the admin API or exchanged for a dashboard session: every right. */
export const ADMIN_KEY_PRINCIPAL: Principal = {
  kind: 'admin_key',
  userId: null,
  email: null,
  name: null,
  roles: [{ kind: 'admin' }],
};

export function auditActorOf(principal: Principal): AuditActor {
  return principal.kind === 'admin_key'
    ? { type: 'admin_key', id: null, email: null }
    : { type: 'user', id: principal.userId, email: principal.email };
}

/** The audit scope of a change made in this request by this principal. */
export function auditScopeOf(principal: Principal | null, request: Request): AuditScope {
  return {
    actor: principal ? auditActorOf(principal) : { type: 'anonymous', id: null, email: null },
    sourceIp: request.ip ?? request.socket?.remoteAddress ?? null,
    requestId: request.id ?? null,
  };
}
