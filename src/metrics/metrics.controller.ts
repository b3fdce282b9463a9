import { Controller, Get, Header, Headers, UnauthorizedException } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { Public } from '../auth/public.decorator';
import { MetricsService } from './metrics.service';
import { AppConfig } from '../config/app-config';

/** Prometheus scrape endpoint; outside /v1, and not a virtual key's business. */
@Public()
@Controller('metrics')
export class MetricsController {
  private readonly token?: Buffer;

  constructor(
    private readonly metrics: MetricsService,
    config: AppConfig,
  ) {
    const token = config.METRICS_TOKEN;
    this.token = token ? Buffer.from(`Bearer ${token}`) : undefined;
  }

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  async scrape(@Headers('authorization') authorization?: string): Promise<string> {
    if (this.token && !matches(this.token, authorization)) {
      throw new UnauthorizedException('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    return this.metrics.registry.metrics();
  }
}

function matches(expected: Buffer, given: string | undefined): boolean {
  const actual = Buffer.from(given ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
