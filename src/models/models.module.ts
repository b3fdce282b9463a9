import { Module } from '@nestjs/common';
import { ModelCatalog } from './model-catalog.service';
import { ModelsController } from './models.controller';

@Module({
  controllers: [ModelsController],
  providers: [ModelCatalog],
})
export class ModelsModule {}
