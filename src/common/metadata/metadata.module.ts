import { Global, Module } from '@nestjs/common';
import { MemoizedReflector } from './memoized-reflector';

/** The memoized Reflector for the guards that read route metadata on every request. */
@Global()
@Module({ providers: [MemoizedReflector], exports: [MemoizedReflector] })
export class MetadataModule {}
