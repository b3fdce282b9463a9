import { databaseFailureOf } from './database-failure';

// The shapes below are those node-postgres 8 and Prisma 7's pg adapter throw (seen against a
// real Postgres: NUL in a text parameter, year 0, a bigint out of range, a refused, a silent and
// a lost connection).

/** node-postgres's DatabaseError: the SQLSTATE in `code`, with a `severity`. */
const pgError = (code: string, message = 'failed') =>
  Object.assign(new Error(message), { name: 'error', severity: 'ERROR', code });

/** Prisma's known request error around the pg adapter's DriverAdapterError. */
const prismaError = (code: string, cause: object) =>
  Object.assign(new Error('Invalid `prisma.virtualKey.findUnique()` invocation'), {
    name: 'PrismaClientKnownRequestError',
    code,
    meta: {
      modelName: 'VirtualKey',
      driverAdapterError: Object.assign(new Error('DriverAdapterError'), {
        name: 'DriverAdapterError',
        cause,
      }),
    },
  });

describe('databaseFailureOf', () => {
  it.each([
    ['NUL in text (node-postgres)', pgError('22021'), '22021'],
    [
      'NUL in text (Prisma)',
      prismaError('P2039', { originalCode: '22021', kind: 'postgres' }),
      '22021',
    ],
    ['year 0 (Prisma)', prismaError('P2039', { originalCode: '22008', kind: 'postgres' }), '22008'],
    [
      'a bigint out of range',
      prismaError('P2020', { originalCode: '22003', kind: 'ValueOutOfRange' }),
      '22003',
    ],
    [
      'a malformed uuid',
      prismaError('P2007', { originalCode: '22P02', kind: 'InvalidInputValue' }),
      '22P02',
    ],
  ])('reads %s as data the database refused', (_case, error, sqlState) => {
    expect(databaseFailureOf(error)).toEqual({ kind: 'data', sqlState });
  });

  it.each([
    ['a refused connection (Prisma)', prismaError('P1001', { kind: 'DatabaseNotReachable' })],
    [
      'a silent network (connect timeout, through Prisma)',
      Object.assign(
        new Error('Connection terminated due to connection timeout', {
          cause: new Error('Connection terminated unexpectedly'),
        }),
        { clientVersion: '7.10.0' },
      ),
    ],
    ['an unanswered query', new Error('Query read timeout')],
    [
      'a refused connection (node-postgres)',
      Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    ],
    ['a statement timeout', pgError('57014', 'canceling statement due to statement timeout')],
    ['a shutting-down server', pgError('57P01')],
    [
      'too many connections',
      prismaError('P2037', { originalCode: '53300', kind: 'TooManyConnections' }),
    ],
    [
      'a pool timeout',
      Object.assign(new Error('pool'), { name: 'PrismaClientKnownRequestError', code: 'P2024' }),
    ],
  ])('reads %s as the database unavailable', (_case, error) => {
    expect(databaseFailureOf(error)).toEqual({ kind: 'unavailable' });
  });

  it.each([
    [
      'a unique violation',
      prismaError('P2002', { originalCode: '23505', kind: 'UniqueConstraintViolation' }),
    ],
    ['a missing column (a bug, not the client)', pgError('42703')],
    ['a plain error', new TypeError('x is undefined')],
    ['a value that is no error', 'boom'],
  ])('leaves %s alone (a 500)', (_case, error) => {
    expect(databaseFailureOf(error)).toBeNull();
  });

  it('stops on a cycle of causes', () => {
    const error: Error & { cause?: unknown } = new Error('loop');
    error.cause = error;
    expect(databaseFailureOf(error)).toBeNull();
  });
});
