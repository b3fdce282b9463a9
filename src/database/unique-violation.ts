import { Prisma } from '../generated/prisma/client';

/**
 * Whether `error` is a unique index refusing a write (Prisma's P2002): a write that raced another
 * for the same name or secret, which the service turns into its own 409 or message.
 */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}
