import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import type { AuditScope } from '../audit/audit.types';
import type { Access, Capability } from './access';
import { auditScopeOf } from './principal';

declare module 'express' {
  interface Request {
    /** Set by the admin guard or the dashboard session guard once the caller is known. */
    access?: Access;
  }
}

export const REQUIRES = 'gateway:requires';

/**
 * What a route needs at least. `session`: any signed-in principal, even one without a role (the
 * dashboard's own session calls). A route without it is refused: the guards fail closed.
 */
export const Requires = (capability: Capability | 'session') => SetMetadata(REQUIRES, capability);

/** The caller's Access, set by the guard. */
export const CurrentAccess = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Access =>
    context.switchToHttp().getRequest<Request>().access!,
);

/** Who makes the change in this request, from where, for its audit row. */
export const ChangeScope = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuditScope => {
    const request = context.switchToHttp().getRequest<Request>();
    return auditScopeOf(request.access?.principal ?? null, request);
  },
);
