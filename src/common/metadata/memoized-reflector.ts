import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/**
 * Nest's Reflector with each answer kept: a route's metadata is written by decorators when its
 * classes load and never changes afterwards, yet `Reflect.getMetadata` (reflect-metadata) walks
 * the target's prototype chain through the polyfill's registry on every call, and a miss, the
 * usual answer, walks it to the end. The guards on the completion route ask seven questions per
 * request (@nestjs/throttler's canActivate six per throttler, ApiKeyGuard one), each of the
 * handler and then of its class: 14 reads, about 1 % of a JSON request's CPU
 * (docs/performance.md, "Sixteenth pass"). Metadata defined after a target was first read here would not be seen: nothing in
 * the gateway defines any once requests flow.
 */
@Injectable()
export class MemoizedReflector extends Reflector {
  private readonly answers = new WeakMap<object, Map<unknown, unknown>>();

  // The parent's overloads narrow the key's type; every one of them lands in this body.
  override get(metadataKeyOrDecorator: any, target: object): any {
    let known = this.answers.get(target);
    if (!known) this.answers.set(target, (known = new Map()));
    if (known.has(metadataKeyOrDecorator)) return known.get(metadataKeyOrDecorator);
    const answer: unknown = super.get(metadataKeyOrDecorator, target as never);
    known.set(metadataKeyOrDecorator, answer);
    return answer;
  }
}
