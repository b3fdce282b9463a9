import { GatewayException } from '../common/errors/gateway.exception';
import { toCsv } from '../common/http/csv';
import type { AuditFilter } from './audit.repository';
import type { AuditEntry } from './audit.types';

/** The largest CSV export; a wider one asks for a narrower range. */
export const AUDIT_CSV_MAX_ROWS = 100_000;

export interface AuditQuery {
  from?: string;
  to?: string;
  actor?: string;
  action?: string[];
  target?: string;
  cursor?: string;
}

/** The query's filter: days are UTC, `from` included and `to` excluded, as for /admin/spend. */
export function auditFilterOf(query: AuditQuery): AuditFilter {
  const from = query.from ? new Date(`${query.from}T00:00:00Z`) : undefined;
  const to = query.to ? new Date(`${query.to}T00:00:00Z`) : undefined;
  if (from && to && from >= to)
    throw new GatewayException('invalid_parameter', {
      param: 'from',
      message: '`from` must be a day before `to` (the first day excluded).',
    });
  return {
    from,
    to,
    actor: query.actor?.trim() || undefined,
    actions: query.action?.length ? query.action : undefined,
    target: query.target?.trim() || undefined,
    beforeId: query.cursor ? BigInt(query.cursor) : undefined,
  };
}

export function presentAuditEntry(entry: AuditEntry) {
  return {
    object: 'audit_entry' as const,
    id: entry.id,
    created_at: entry.createdAt.toISOString(),
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    before: entry.before,
    after: entry.after,
    source_ip: entry.sourceIp,
    request_id: entry.requestId,
  };
}

export function presentAuditPage(rows: AuditEntry[], more: boolean) {
  return {
    object: 'list' as const,
    data: rows.map(presentAuditEntry),
    has_more: more,
    next_cursor: more ? rows[rows.length - 1].id : null,
  };
}

/** One line per row; the change as JSON text in two cells. */
export function auditCsv(rows: AuditEntry[]): string {
  const json = (value: unknown) =>
    value === null || value === undefined ? null : JSON.stringify(value);
  return toCsv(
    [
      'id',
      'created_at',
      'actor_type',
      'actor_id',
      'actor_email',
      'action',
      'target_type',
      'target_id',
      'target_name',
      'before',
      'after',
      'source_ip',
      'request_id',
    ],
    rows.map((row) => [
      row.id,
      row.createdAt.toISOString(),
      row.actor.type,
      row.actor.id,
      row.actor.email,
      row.action,
      row.target.type,
      row.target.id,
      row.target.name,
      json(row.before),
      json(row.after),
      row.sourceIp,
      row.requestId,
    ]),
  );
}

export function auditCsvFilename(query: AuditQuery): string {
  return `audit${query.from ? `-${query.from}` : ''}${query.to ? `-${query.to}` : ''}.csv`;
}
