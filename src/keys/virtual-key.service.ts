import { Injectable } from '@nestjs/common';
import { changedFields } from '../audit/audit-redaction';
import { AuditService } from '../audit/audit.service';
import type { AuditAction, AuditScope } from '../audit/audit.types';
import { isUniqueViolation } from '../database/unique-violation';
import { findByIdOrName } from '../common/ids/id-or-name';
import { GatewayException } from '../common/errors/gateway.exception';
import { assertBudget } from '../common/time/budget-period';
import { Prisma, type VirtualKey } from '../generated/prisma/client';
import { VirtualKeyEvents } from './virtual-key-events';
import { displayPrefix, generateSecret, hashSecret, SECRET_FORMAT } from './virtual-key-secret';
import { KeyAuditWrite, VirtualKeyRepository } from './virtual-key.repository';
import { auditSnapshot, toView } from './virtual-key.view';
import {
  BudgetPeriod,
  CreatedVirtualKey,
  CreateVirtualKeyInput,
  keyState,
  RotateVirtualKeyInput,
  UpdateVirtualKeyInput,
  VirtualKeySettings,
  VirtualKeyView,
} from './virtual-key.types';

export { toView } from './virtual-key.view';

export interface SeedKeyInput extends CreateVirtualKeyInput {
  /** The secret itself, or only its SHA-256 so that no plaintext secret sits in the seed. */
  secret?: string;
  secretSha256?: string;
}

/** The longest a rotated-out secret may keep working. */
export const MAX_ROTATION_GRACE_SECONDS = 30 * 24 * 3600;

/**
 * Key management, shared by the CLI, the seed, the admin API and the dashboard. Every change
 * writes its audit row in its own transaction; `scope` names who made it (the process itself
 * when absent: `system` in the gateway, `cli` in the command line).
 */
@Injectable()
export class VirtualKeyService {
  constructor(
    private readonly repository: VirtualKeyRepository,
    private readonly events: VirtualKeyEvents,
    private readonly audit: AuditService,
  ) {}

  async create(input: CreateVirtualKeyInput, scope?: AuditScope): Promise<CreatedVirtualKey> {
    if (await this.repository.findByName(input.name)) throw nameTaken(input.name);
    assertBudget(input.tokenBudget ?? null, input.budgetUsd ?? null, input.budgetPeriod ?? null);
    await this.assertTeam(input.teamId);
    const secret = generateSecret();
    const key = await this.uniqueName(input.name, () =>
      this.repository.create(
        {
          name: input.name,
          keyPrefix: displayPrefix(secret),
          secretHash: hashSecret(secret),
          ...settings(input),
          ...(input.ownerUserId ? { owner: { connect: { id: input.ownerUserId } } } : {}),
        },
        this.recordAs('key.create', scope),
      ),
    );
    return { key: toView(key), secret };
  }

  async list(): Promise<VirtualKeyView[]> {
    return (await this.repository.list()).map(toView);
  }

  /** Every key's name by its id: reports name the keys they group by. */
  async namesById(): Promise<Map<string, string>> {
    return new Map((await this.list()).map((key) => [key.id, key.name]));
  }

  async count(): Promise<number> {
    return this.repository.count();
  }

  async get(idOrName: string): Promise<VirtualKeyView> {
    return toView(await this.find(idOrName));
  }

  /** Changes the given fields only. Usage and rate-limit counters live elsewhere and stay. */
  async update(
    idOrName: string,
    input: UpdateVirtualKeyInput,
    scope?: AuditScope,
  ): Promise<VirtualKeyView> {
    const key = await this.find(idOrName);
    if (
      input.name !== undefined &&
      input.name !== key.name &&
      (await this.repository.findByName(input.name))
    )
      throw nameTaken(input.name);
    const data: Prisma.VirtualKeyUpdateInput = {};
    if (input.name !== undefined) data.name = input.name;
    if (input.expiresAt !== undefined) data.expiresAt = input.expiresAt;
    if (input.rpmLimit !== undefined) data.rpmLimit = input.rpmLimit;
    if (input.tpmLimit !== undefined) data.tpmLimit = input.tpmLimit;
    if (input.tokenBudget !== undefined) data.tokenBudget = input.tokenBudget;
    if (input.budgetPeriod !== undefined) data.budgetPeriod = input.budgetPeriod;
    if (input.allowedModels !== undefined) data.allowedModels = input.allowedModels;
    if (input.budgetUsd !== undefined) data.budgetUsd = input.budgetUsd;
    if (input.teamId !== undefined)
      data.team = input.teamId === null ? { disconnect: true } : { connect: { id: input.teamId } };
    await this.assertTeam(input.teamId);
    assertBudget(
      input.tokenBudget !== undefined ? input.tokenBudget : key.tokenBudget,
      input.budgetUsd !== undefined ? input.budgetUsd : (key.budgetUsd?.toString() ?? null),
      input.budgetPeriod !== undefined
        ? input.budgetPeriod
        : (key.budgetPeriod as BudgetPeriod | null),
    );
    return toView(
      await this.uniqueName(input.name ?? key.name, () =>
        this.announce(this.repository.update(key.id, data, this.recordAs('key.update', scope))),
      ),
    );
  }

  /** A team_id must name an existing team: a clear 400 rather than a foreign-key failure. */
  private async assertTeam(teamId: string | null | undefined): Promise<void> {
    if (!teamId) return;
    if (!(await this.repository.teamExists(teamId)))
      throw new GatewayException('invalid_parameter', {
        param: 'team_id',
        message: `No team has the id "${teamId}".`,
      });
  }

  /** Revokes by id or name; revoking twice keeps the first revocation time. */
  async revoke(idOrName: string, scope?: AuditScope): Promise<VirtualKeyView> {
    const key = await this.find(idOrName);
    if (key.revokedAt) return toView(key);
    return toView(
      await this.announce(
        this.repository.update(
          key.id,
          { revokedAt: new Date() },
          this.recordAs('key.revoke', scope),
        ),
      ),
    );
  }

  /**
   * Issues a new secret, shown once. The replaced one keeps working for graceSeconds so clients
   * can move over without downtime; a secret replaced earlier stops working at once.
   */
  async rotate(
    idOrName: string,
    input: RotateVirtualKeyInput,
    scope?: AuditScope,
  ): Promise<CreatedVirtualKey> {
    const { graceSeconds } = input;
    if (
      !Number.isInteger(graceSeconds) ||
      graceSeconds < 0 ||
      graceSeconds > MAX_ROTATION_GRACE_SECONDS
    ) {
      throw new GatewayException('invalid_parameter', {
        param: 'grace_seconds',
        message: `grace_seconds must be an integer from 0 to ${MAX_ROTATION_GRACE_SECONDS}.`,
      });
    }
    const key = await this.find(idOrName);
    if (keyState(key) === 'revoked') throw new GatewayException('key_already_revoked');
    const secret = generateSecret();
    const updated = await this.announce(
      this.repository.update(
        key.id,
        {
          keyPrefix: displayPrefix(secret),
          secretHash: hashSecret(secret),
          previousSecretHash: graceSeconds > 0 ? key.secretHash : null,
          previousSecretExpiresAt:
            graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000) : null,
        },
        this.recordAs('key.rotate', scope),
      ),
    );
    return { key: toView(updated), secret };
  }

  /**
   * Idempotent upsert of an admin-declared key by name. Declared settings are overwritten;
   * nothing else about the key (its id, creation time, usage) is touched.
   */
  async seed(input: SeedKeyInput, scope?: AuditScope): Promise<VirtualKeyView> {
    const secretHash =
      input.secretSha256?.toLowerCase() ?? (input.secret ? hashSecret(input.secret) : undefined);
    if (!secretHash || !/^[0-9a-f]{64}$/.test(secretHash)) {
      throw new Error(`seed key "${input.name}": give "key" or a 64-hex-digit "key_sha256"`);
    }
    if (input.secret !== undefined && !SECRET_FORMAT.test(input.secret)) {
      throw new Error(`seed key "${input.name}": a key is 20-256 characters of A-Z a-z 0-9 _ - .`);
    }
    assertBudget(input.tokenBudget ?? null, input.budgetUsd ?? null, input.budgetPeriod ?? null);
    await this.assertTeam(input.teamId);
    const declared = {
      secretHash,
      keyPrefix: input.secret ? displayPrefix(input.secret) : 'seeded',
      ...settings(input),
    };
    try {
      return toView(
        await this.announce(
          this.repository.upsertByName(
            input.name,
            { name: input.name, ...declared },
            declared,
            this.recordAs('key.seed', scope),
          ),
        ),
      );
    } catch (error) {
      // Keys are upserted by name, so the only unique field left to collide is the secret.
      if (isUniqueViolation(error)) {
        throw new Error(
          `seed key "${input.name}": its secret is already used by another key; every key needs its own secret`,
          {
            cause: error,
          },
        );
      }
      throw error;
    }
  }

  private async find(idOrName: string): Promise<VirtualKey> {
    const key = await findByIdOrName(idOrName, this.repository);
    if (!key)
      throw new GatewayException('key_not_found', {
        message: `No virtual key with id or name "${idOrName}".`,
      });
    return key;
  }

  /**
   * The audit row of a key change: the whole key for a creation, the fields that changed
   * otherwise (updated_at aside). Keys as the API shows them: no hash, and the secret never.
   */
  private recordAs(action: AuditAction, scope: AuditScope | undefined): KeyAuditWrite {
    return async (tx, before, after) => {
      const now = auditSnapshot(after);
      const diff = before ? changedFields(auditSnapshot(before), now) : null;
      await this.audit.record(
        tx,
        {
          action,
          target: { type: 'key', id: after.id, name: after.name },
          before: before ? (diff?.before ?? {}) : null,
          after: before ? (diff?.after ?? {}) : now,
        },
        scope,
      );
    };
  }

  /** Tells this instance's caches at once; other instances hear it from Postgres at commit. */
  private async announce(write: Promise<VirtualKey>): Promise<VirtualKey> {
    const key = await write;
    this.events.publish(key.id);
    return key;
  }

  /** The name check above can race another writer; the unique index has the last word. */
  private async uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken(name);
      throw error;
    }
  }
}

function settings(input: VirtualKeySettings) {
  return {
    expiresAt: input.expiresAt ?? null,
    rpmLimit: input.rpmLimit ?? null,
    tpmLimit: input.tpmLimit ?? null,
    tokenBudget: input.tokenBudget ?? null,
    budgetUsd: input.budgetUsd ?? null,
    budgetPeriod: input.budgetPeriod ?? null,
    allowedModels: input.allowedModels ?? [],
    ...(input.teamId ? { team: { connect: { id: input.teamId } } } : {}),
  };
}

function nameTaken(name: string): GatewayException {
  return new GatewayException('key_name_taken', {
    param: 'name',
    message: `A virtual key named "${name}" exists.`,
  });
}
