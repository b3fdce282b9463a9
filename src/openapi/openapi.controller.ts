import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { OPENAPI_DOCUMENT } from './openapi.document';

/** GET /openapi.json: public, like the API it describes is discoverable; it holds no secret. */
@Public()
@Controller()
export class OpenApiController {
  @Get('openapi.json')
  document() {
    return OPENAPI_DOCUMENT;
  }
}
