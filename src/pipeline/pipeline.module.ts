import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module';
import { ProvidersModule } from '../providers/providers.module';
import { AdmissionService } from './admission.service';
import { AttemptsService } from './attempts.service';
import { DeploymentHealthService } from './deployment-health.service';
import { DeploymentRouter } from './deployment-router.service';
import { OutcomeService } from './outcome.service';
import { Pipeline } from './pipeline.service';
import { StreamRelay } from './stream-relay.service';

/** The pipeline's services; its unit tests build them with fakes around (pipeline.fixture.ts). */
export const PIPELINE_SERVICES = [
  Pipeline,
  AdmissionService,
  AttemptsService,
  OutcomeService,
  StreamRelay,
  DeploymentRouter,
  DeploymentHealthService,
];

/**
 * The format-neutral request pipeline. A wire-format module imports it and calls Pipeline;
 * the dashboard reads deployment health from it.
 */
@Module({
  imports: [ProvidersModule, LimitsModule],
  providers: PIPELINE_SERVICES,
  exports: [Pipeline, DeploymentRouter, DeploymentHealthService],
})
export class PipelineModule {}
