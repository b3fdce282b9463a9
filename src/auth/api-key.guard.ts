import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { IS_PUBLIC } from './public.decorator';
import { VirtualKeyVerifier } from './virtual-key-verifier.service';

/**
 * Global guard: every route needs a valid virtual key, as `Authorization: Bearer <key>` or
 * `x-api-key: <key>`, unless it is marked @Public().
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: VirtualKeyVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const { authorization } = request.headers;
    const apiKey = request.headers['x-api-key'];
    // Anthropic's clients send the key as `x-api-key` (Claude Code with ANTHROPIC_API_KEY); the
    // official SDK and ANTHROPIC_AUTH_TOKEN send a Bearer header, which wins when both are there.
    request.virtualKey =
      authorization === undefined && typeof apiKey === 'string'
        ? await this.verifier.verifySecret(apiKey.trim())
        : await this.verifier.verify(authorization);
    return true;
  }
}
