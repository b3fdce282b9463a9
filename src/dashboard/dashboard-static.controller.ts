import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Public } from '../auth/public.decorator';
import { GatewayException } from '../common/errors/gateway.exception';
import { assertDashboardEnabled } from './dashboard-session.guard';
import { DashboardSettings } from './dashboard-settings';

/** Where `npm run build` puts the page (scripts/build-dashboard.js), from src/ and dist/ alike. */
export const DASHBOARD_ASSETS_DIR = join(__dirname, '..', '..', 'dist', 'public', 'dashboard');

/**
 * The page and its files, from the build output. Only files that exist at boot are served, by
 * exact name, so no request path ever reaches the file system.
 */
@Public()
@Controller('dashboard')
export class DashboardStaticController {
  private readonly files: Set<string>;

  constructor(@Inject(DashboardSettings) private readonly settings: DashboardSettings) {
    this.files = new Set(existsSync(DASHBOARD_ASSETS_DIR) ? readdirSync(DASHBOARD_ASSETS_DIR) : []);
  }

  @Get()
  page(@Res() response: Response): void {
    this.send('index.html', response);
  }

  @Get('assets/:file')
  asset(@Param('file') file: string, @Res() response: Response): void {
    if (file === 'index.html' || !this.files.has(file)) throw new GatewayException('not_found');
    this.send(file, response);
  }

  private send(file: string, response: Response): void {
    assertDashboardEnabled(this.settings);
    if (!this.files.has(file)) {
      throw new GatewayException('service_unavailable', {
        message: 'The dashboard is not built: run `npm run build`.',
      });
    }
    // Cache-Control stays the security middleware's no-store (docs/dashboard.md, "Headers").
    response.sendFile(join(DASHBOARD_ASSETS_DIR, file), { cacheControl: false });
  }
}
