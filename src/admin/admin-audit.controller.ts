import { Controller, Get, Query, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import {
  AUDIT_CSV_MAX_ROWS,
  auditCsv,
  auditCsvFilename,
  auditFilterOf,
  presentAuditPage,
} from '../audit/audit.presenter';
import { AuditService } from '../audit/audit.service';
import { Public } from '../auth/public.decorator';
import { GatewayException } from '../common/errors/gateway.exception';
import { Requires } from '../identity/current-access.decorator';
import { AdminGuard } from './admin.guard';
import { AuditQueryDto } from './dto/audit-query.dto';

/**
 * The audit log, newest first (docs/sso.md, "Audit log"): admins and viewers only. Read-only:
 * no route edits or deletes a row, and the table's trigger refuses it anyway.
 */
@Public() // no virtual key: AdminGuard checks the admin credential instead
@UseGuards(AdminGuard)
@Controller('admin/audit')
export class AdminAuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @Requires('audit.read')
  async list(@Query() query: AuditQueryDto, @Res({ passthrough: true }) response: Response) {
    return auditResponse(this.audit, query, response);
  }
}

/** Shared with the dashboard: one page as JSON, or every matching row as CSV. */
export async function auditResponse(audit: AuditService, query: AuditQueryDto, response: Response) {
  const filter = auditFilterOf(query);
  if (query.format === 'csv') {
    const { rows, more } = await audit.list(filter, AUDIT_CSV_MAX_ROWS);
    if (more)
      throw new GatewayException('invalid_parameter', {
        param: 'from',
        message: `More than ${AUDIT_CSV_MAX_ROWS} rows match: narrow the range with from and to.`,
      });
    response.setHeader('content-type', 'text/csv; charset=utf-8');
    response.setHeader('content-disposition', `attachment; filename="${auditCsvFilename(query)}"`);
    return auditCsv(rows);
  }
  const { rows, more } = await audit.list(filter, query.limit ?? 100);
  return presentAuditPage(rows, more);
}
