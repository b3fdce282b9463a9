import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { KeysModule } from '../keys/keys.module';
import { ApiKeyGuard } from './api-key.guard';
import { VirtualKeyVerifier } from './virtual-key-verifier.service';

@Module({
  imports: [KeysModule],
  providers: [VirtualKeyVerifier, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [VirtualKeyVerifier],
})
export class AuthModule {}
