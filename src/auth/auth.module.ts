import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { KeysModule } from '../keys/keys.module';
import { ApiKeyGuard } from './api-key.guard';
import { KeyChangeListener } from './key-change-listener.service';
import { VirtualKeyVerifier } from './virtual-key-verifier.service';

@Module({
  imports: [KeysModule],
  providers: [VirtualKeyVerifier, KeyChangeListener, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [VirtualKeyVerifier],
})
export class AuthModule {}
