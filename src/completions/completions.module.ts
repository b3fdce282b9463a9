import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module';
import { ProvidersModule } from '../providers/providers.module';
import { CompletionsController } from './completions.controller';
import { CompletionsService } from './completions.service';
import { DeploymentHealthService } from './deployment-health.service';
import { DeploymentRouter } from './deployment-router.service';

@Module({
  imports: [ProvidersModule, LimitsModule],
  controllers: [CompletionsController],
  providers: [CompletionsService, DeploymentRouter, DeploymentHealthService],
  exports: [DeploymentRouter, DeploymentHealthService],
})
export class CompletionsModule {}
