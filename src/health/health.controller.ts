import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { withTimeout } from '../common/async/with-timeout';
import { databaseTimeouts } from '../database/database-timeouts';
import { PrismaService } from '../database/prisma.service';
import { AppConfig } from '../config/app-config';

@Public()
@Controller('health')
export class HealthController {
  private readonly pingMs: number;

  constructor(
    private readonly prisma: PrismaService,
    config: AppConfig,
  ) {
    this.pingMs = databaseTimeouts(config).pingMs;
  }

  /** Liveness: the process answers. */
  @Get()
  @HttpCode(200)
  live() {
    return { status: 'ok' };
  }

  /**
   * Readiness: the database answers too, within DB_PING_TIMEOUT_MS. A database behind a network
   * that drops packets never answers at all; the probe must still say "not ready" in time.
   */
  @Get('ready')
  async ready() {
    try {
      await withTimeout(
        this.prisma.$queryRaw`SELECT 1`,
        this.pingMs,
        `no answer within ${this.pingMs} ms`,
      );
    } catch {
      throw new ServiceUnavailableException('database unreachable');
    }
    return { status: 'ok', database: 'ok' };
  }
}
