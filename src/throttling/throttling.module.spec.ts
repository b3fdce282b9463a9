import { Controller, Get, INestApplication, UseGuards } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { AddressInfo } from 'node:net';
import { loadAppConfig } from '../config/app-config';
import { AppConfigModule } from '../config/app-config.module';
import { ThrottlingModule } from './throttling.module';

// Another API reuses the throttler with the stock guard (as the admin API will). On its routes,
// which carry no virtual key, the per-key throttler must neither count nor refuse anything.
@Controller('probe')
class ProbeController {
  @Get()
  @UseGuards(ThrottlerGuard)
  probe() {
    return { ok: true };
  }
}

describe('ThrottlingModule', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        AppConfigModule.forRoot(loadAppConfig({ REDIS_URL: '', KEY_RPM_LIMIT: '1' })),
        ThrottlingModule,
      ],
      controllers: [ProbeController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(() => app.close());

  it('leaves routes without a virtual key to the throttlers meant for them', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${url}/probe`)).status);
    expect(statuses).toEqual([200, 200, 200]);
  });
});
