/**
 * What a database error that reached the exception filter means to the client: `data`, Postgres
 * refused a value of the request (SQLSTATE class 22, "data exception": NUL in text, a date out of
 * range, a number too large), or `unavailable`, the database cannot answer now (refused or lost
 * connections, timeouts, too many connections, a shutdown, a write conflict to retry). Read from
 * the errors of node-postgres and of Prisma's pg adapter (which keeps the SQLSTATE as
 * `originalCode` and the socket error as a `kind`), following `cause` and Prisma's
 * `meta.driverAdapterError`; null for anything else, which stays a 500.
 */
export type DatabaseFailure = { kind: 'data'; sqlState: string } | { kind: 'unavailable' };

/** Connection exception, insufficient resources, operator intervention, system error, rollback. */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58', '40']);
/** Prisma's own codes for a database out of reach, a timeout, a closed transaction. */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
/** The pg adapter's kinds for socket errors and refusals to connect. */
const ADAPTER_UNAVAILABLE = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
  'TransactionWriteConflict',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres's client-side failures, which carry no code. */
const PG_CLIENT_FAILURE =
  /^(Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end)/;

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  originalCode?: unknown;
  severity?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

export function databaseFailureOf(error: unknown): DatabaseFailure | null {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0 && seen.size < 10) {
    const node = pending.shift();
    if (!node || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    const failure = failureOf(node as ErrorLike);
    if (failure) return failure;
    pending.push((node as ErrorLike).cause, (node as ErrorLike).meta?.driverAdapterError);
  }
  return null;
}

function failureOf(node: ErrorLike): DatabaseFailure | null {
  const sqlState =
    typeof node.originalCode === 'string'
      ? node.originalCode
      : typeof node.severity === 'string' && typeof node.code === 'string'
        ? node.code
        : null;
  if (sqlState && /^[0-9A-Z]{5}$/.test(sqlState)) {
    if (sqlState.startsWith('22')) return { kind: 'data', sqlState };
    if (UNAVAILABLE_CLASSES.has(sqlState.slice(0, 2))) return { kind: 'unavailable' };
    return null;
  }
  const prisma = typeof node.name === 'string' && node.name.startsWith('PrismaClient');
  if (prisma && typeof node.code === 'string' && PRISMA_UNAVAILABLE.has(node.code))
    return { kind: 'unavailable' };
  if (typeof node.kind === 'string' && ADAPTER_UNAVAILABLE.has(node.kind))
    return { kind: 'unavailable' };
  if (typeof node.code === 'string' && NETWORK_CODES.has(node.code)) return { kind: 'unavailable' };
  if (typeof node.message === 'string' && PG_CLIENT_FAILURE.test(node.message))
    return { kind: 'unavailable' };
  return null;
}
