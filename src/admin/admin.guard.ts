import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { GatewayException } from '../common/errors/gateway.exception';
import { AppConfig } from '../config/app-config';

/**
 * The admin API's credential check: `Authorization: Bearer <ADMIN_API_KEY>`. Both sides are
 * hashed before the constant-time comparison, so neither the key's content nor its length
 * leaks through timing. Without ADMIN_API_KEY the admin API does not exist (404).
 */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly expected: Buffer | null;

  constructor(config: AppConfig) {
    const key = config.ADMIN_API_KEY;
    this.expected = key ? sha256(key) : null;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.expected)
      throw new GatewayException('not_found', {
        message: 'The admin API is disabled: set ADMIN_API_KEY to enable it.',
      });
    const authorization = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (!presented || !timingSafeEqual(sha256(presented), this.expected))
      throw new GatewayException('invalid_admin_key');
    return true;
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
