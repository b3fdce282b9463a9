import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import type { VirtualKey } from '../generated/prisma/client';
import { displayPrefix, generateSecret, hashSecret, SECRET_FORMAT } from './virtual-key-secret';
import { VirtualKeyRepository } from './virtual-key.repository';
import { CreatedVirtualKey, CreateVirtualKeyInput, VirtualKeyView } from './virtual-key.types';

export interface SeedKeyInput extends CreateVirtualKeyInput {
  /** The secret itself, or only its SHA-256 so that no plaintext secret sits in the seed. */
  secret?: string;
  secretSha256?: string;
}

/** Key management, shared by the CLI, the seed and the admin API. */
@Injectable()
export class VirtualKeyService {
  constructor(private readonly repository: VirtualKeyRepository) {}

  async create(input: CreateVirtualKeyInput): Promise<CreatedVirtualKey> {
    if (await this.repository.findByName(input.name)) throw new ConflictException(`A key named "${input.name}" exists`);
    const secret = generateSecret();
    const key = await this.repository.create({
      name: input.name,
      keyPrefix: displayPrefix(secret),
      secretHash: hashSecret(secret),
      expiresAt: input.expiresAt ?? null,
      rpmLimit: input.rpmLimit ?? null,
      tpmLimit: input.tpmLimit ?? null,
      allowedModels: input.allowedModels ?? [],
    });
    return { key: toView(key), secret };
  }

  async list(): Promise<VirtualKeyView[]> {
    return (await this.repository.list()).map(toView);
  }

  async count(): Promise<number> {
    return this.repository.count();
  }

  /** Revokes by id or name; revoking twice keeps the first revocation time. */
  async revoke(idOrName: string): Promise<VirtualKeyView> {
    const key = await this.find(idOrName);
    if (key.revokedAt) return toView(key);
    return toView(await this.repository.update(key.id, { revokedAt: new Date() }));
  }

  /**
   * Idempotent upsert of an admin-declared key by name. Declared settings are overwritten;
   * nothing else about the key (its id, creation time, usage) is touched.
   */
  async seed(input: SeedKeyInput): Promise<VirtualKeyView> {
    const secretHash = input.secretSha256?.toLowerCase() ?? (input.secret ? hashSecret(input.secret) : undefined);
    if (!secretHash || !/^[0-9a-f]{64}$/.test(secretHash)) {
      throw new Error(`seed key "${input.name}": give "key" or a 64-hex-digit "key_sha256"`);
    }
    if (input.secret !== undefined && !SECRET_FORMAT.test(input.secret)) {
      throw new Error(`seed key "${input.name}": a key is 20-256 characters of A-Z a-z 0-9 _ - .`);
    }
    const settings = {
      secretHash,
      keyPrefix: input.secret ? displayPrefix(input.secret) : 'seeded',
      expiresAt: input.expiresAt ?? null,
      rpmLimit: input.rpmLimit ?? null,
      tpmLimit: input.tpmLimit ?? null,
      allowedModels: input.allowedModels ?? [],
    };
    return toView(await this.repository.upsertByName(input.name, { name: input.name, ...settings }, settings));
  }

  private async find(idOrName: string): Promise<VirtualKey> {
    const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrName);
    const key = (isUuid ? await this.repository.findById(idOrName) : null) ?? (await this.repository.findByName(idOrName));
    if (!key) throw new NotFoundException(`No key with id or name "${idOrName}"`);
    return key;
  }
}

export function toView(key: VirtualKey): VirtualKeyView {
  return {
    id: key.id,
    name: key.name,
    keyPrefix: key.keyPrefix,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    rpmLimit: key.rpmLimit,
    tpmLimit: key.tpmLimit,
    allowedModels: key.allowedModels,
  };
}
