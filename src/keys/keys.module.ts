import { Module } from '@nestjs/common';
import { VirtualKeyRepository } from './virtual-key.repository';
import { VirtualKeyService } from './virtual-key.service';

@Module({
  providers: [VirtualKeyRepository, VirtualKeyService],
  exports: [VirtualKeyRepository, VirtualKeyService],
})
export class KeysModule {}
