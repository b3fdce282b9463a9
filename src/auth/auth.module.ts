import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { KeyChangeListener } from './key-change-listener.service';
import { VirtualKeyVerifier } from './virtual-key-verifier.service';

@Module({
  imports: [KeysModule],
  providers: [VirtualKeyVerifier, KeyChangeListener],
  exports: [VirtualKeyVerifier],
})
export class AuthModule {}
