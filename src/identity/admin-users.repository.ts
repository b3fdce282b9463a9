import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { AdminUser, Prisma } from '../generated/prisma/client';

export interface AdminUserClaims {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  groups: string[];
  roles: string[];
}

/** Prisma queries for the people and service accounts of the identity provider. */
@Injectable()
export class AdminUsersRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Creates the user at first sight, else refreshes what the provider says about them. */
  upsert(
    claims: AdminUserClaims,
    options: { signIn: boolean; tx?: Prisma.TransactionClient },
  ): Promise<AdminUser> {
    const { issuer, subject, ...profile } = claims;
    const signedIn = options.signIn ? { lastSignInAt: new Date() } : {};
    return (options.tx ?? this.prisma).adminUser.upsert({
      where: { issuer_subject: { issuer, subject } },
      create: { issuer, subject, ...profile, ...signedIn },
      update: { ...profile, ...signedIn },
    });
  }
}
