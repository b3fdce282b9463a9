import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DrainTimeoutMs, RequestDrain } from './request-drain.service';
import { UsagePartitions } from './usage-partitions.service';
import { UsageRecorder, UsageRecorderOptions } from './usage-recorder.service';
import { UsageReport } from './usage-report.service';
import { SpendReport } from './spend-report.service';
import { UsageRepository } from './usage.repository';

/**
 * Usage records: the recorder every request path writes to, their partitions and reports, and
 * the request drain that makes a graceful shutdown lose none of them. Global because recording
 * usage is a cross-cutting sink, like logging.
 */
@Global()
@Module({
  providers: [
    UsageRepository,
    UsageRecorder,
    UsagePartitions,
    UsageReport,
    SpendReport,
    RequestDrain,
    {
      provide: UsageRecorderOptions,
      inject: [ConfigService],
      useFactory: (config: ConfigService): UsageRecorderOptions => ({
        flushIntervalMs: config.get<number>('USAGE_FLUSH_INTERVAL_MS') ?? 1_000,
        // Not 500: batches that large raised the gateway's peak RSS by about 30 MiB under load
        // for no CPU that the benchmark could resolve (docs/performance.md, "Eleventh pass").
        batchSize: 100,
        maxBuffered: 100_000,
        shutdownAttempts: 5,
        logIntervalMs: config.get<number>('ERROR_LOG_INTERVAL_MS') ?? 10_000,
      }),
    },
    {
      provide: DrainTimeoutMs,
      inject: [ConfigService],
      useFactory: (config: ConfigService) =>
        config.get<number>('SHUTDOWN_DRAIN_TIMEOUT_MS') ?? 30_000,
    },
  ],
  exports: [UsageRecorder, UsageReport, SpendReport, RequestDrain],
})
export class UsageModule {}
