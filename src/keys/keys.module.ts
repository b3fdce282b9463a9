import { Module } from '@nestjs/common';
import { VirtualKeyEvents } from './virtual-key-events';
import { VirtualKeyRepository } from './virtual-key.repository';
import { VirtualKeyService } from './virtual-key.service';

@Module({
  providers: [VirtualKeyRepository, VirtualKeyService, VirtualKeyEvents],
  exports: [VirtualKeyRepository, VirtualKeyService, VirtualKeyEvents],
})
export class KeysModule {}
