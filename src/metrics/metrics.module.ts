import { Global, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { RejectedRequestsMiddleware } from './metrics.middleware';
import { MetricsService } from './metrics.service';

@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService],
  exports: [MetricsService],
})
export class MetricsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(RejectedRequestsMiddleware)
      .forRoutes({ path: 'v1/chat/completions', method: RequestMethod.POST });
  }
}
