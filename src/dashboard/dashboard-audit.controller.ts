import { Controller, Get, Query, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { auditResponse } from '../admin/admin-audit.controller';
import { AuditQueryDto } from '../admin/dto/audit-query.dto';
import { AuditService } from '../audit/audit.service';
import { Public } from '../auth/public.decorator';
import { Requires } from '../identity/current-access.decorator';
import { DashboardSessionGuard } from './dashboard-session.guard';

/** The Audit page: the same query, page and CSV as GET /admin/audit, for admins and viewers. */
@Public() // no virtual key: DashboardSessionGuard checks the session instead
@UseGuards(DashboardSessionGuard)
@Controller('dashboard/api/audit')
export class DashboardAuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @Requires('audit.read')
  list(@Query() query: AuditQueryDto, @Res({ passthrough: true }) response: Response) {
    return auditResponse(this.audit, query, response);
  }
}
