import { Controller, Get, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MemoizedReflector } from './memoized-reflector';

const ROLE = 'role';
const Role = Reflector.createDecorator<string>();

@Controller()
@SetMetadata(ROLE, 'class')
class Decorated {
  @Get()
  @SetMetadata(ROLE, 'handler')
  @Role('admin')
  marked(): void {}

  @Get()
  plain(): void {}
}

describe('MemoizedReflector', () => {
  const nest = new Reflector();
  const targets = [Decorated.prototype.marked, Decorated.prototype.plain, Decorated];

  it('answers what Nest’s Reflector answers, for keys, decorators, hits and misses', () => {
    const memo = new MemoizedReflector();
    for (let round = 0; round < 2; round++) {
      for (const target of targets) {
        expect(memo.get(ROLE, target)).toBe(nest.get(ROLE, target));
        expect(memo.get(Role, target)).toBe(nest.get(Role, target));
        expect(memo.get('absent', target)).toBeUndefined();
      }
      expect(memo.getAllAndOverride(ROLE, [Decorated.prototype.plain, Decorated])).toBe('class');
      expect(memo.getAllAndOverride(ROLE, [Decorated.prototype.marked, Decorated])).toBe('handler');
      expect(memo.getAllAndOverride(Role, [Decorated.prototype.marked, Decorated])).toBe('admin');
    }
  });

  it('reads each (key, target) from reflect-metadata once, a miss included', () => {
    const memo = new MemoizedReflector();
    const read = jest.spyOn(Reflect, 'getMetadata');
    try {
      for (let i = 0; i < 5; i++) {
        memo.getAllAndOverride(ROLE, [Decorated.prototype.plain, Decorated]);
        memo.get('absent', Decorated);
      }
      expect(read).toHaveBeenCalledTimes(3);
    } finally {
      read.mockRestore();
    }
  });
});
