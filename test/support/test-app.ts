import { ConsoleLogger } from '@nestjs/common';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { AppModule } from '../../src/app.module';
import { afterListen, configureApp } from '../../src/app.setup';
import { GatewayExpressAdapter } from '../../src/common/http/gateway-express.adapter';
import { loadAppConfig, logLevelsFrom } from '../../src/config/app-config';
import { parseGatewayConfig } from '../../src/config/gateway-config.loader';
import { GatewayConfigService } from '../../src/config/gateway-config.service';
import { VirtualKeyService } from '../../src/keys/virtual-key.service';
import type { CreateVirtualKeyInput } from '../../src/keys/virtual-key.types';

export interface TestAppOptions {
  /** The `models:` mapping of a gateway config file; the embedded mock defaults when absent. */
  models?: Record<string, unknown[]>;
  /** Environment overrides for this app only. */
  env?: Record<string, string>;
  /** Provider overrides, for the rare test that must break the gateway from inside. */
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

export interface TestApp {
  app: NestExpressApplication;
  /** Base URL of the listening gateway, e.g. http://127.0.0.1:41234 */
  url: string;
  createKey(input?: Partial<CreateVirtualKeyInput>): Promise<string>;
  /** The same, with the key's id, for tests that look the key up (usage rows, counters). */
  createKeyWithId(input?: Partial<CreateVirtualKeyInput>): Promise<{ id: string; secret: string }>;
  close(): Promise<void>;
}

let keyCounter = 0;

/** Boots the real AppModule on a real port, configured exactly as bootstrap.ts does. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadAppConfig({ ...process.env, ...options.env });
  let builder = Test.createTestingModule({ imports: [AppModule.forRoot(config)] });
  if (options.models) {
    builder = builder
      .overrideProvider(GatewayConfigService)
      .useValue(
        new GatewayConfigService(parseGatewayConfig({ models: options.models }, process.env)),
      );
  }
  if (options.override) builder = options.override(builder);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(new GatewayExpressAdapter(), {
    bodyParser: false,
    logger: new ConsoleLogger({ logLevels: logLevelsFrom(config.LOG_LEVEL) }),
  });
  configureApp(app);
  await app.listen(0, '127.0.0.1');
  await afterListen(app);
  const { port } = app.getHttpServer().address() as AddressInfo;
  const keys = app.get(VirtualKeyService);
  const createKeyWithId = async (input: Partial<CreateVirtualKeyInput> = {}) => {
    const { key, secret } = await keys.create({
      name: `test-key-${process.pid}-${Date.now()}-${keyCounter++}`,
      ...input,
    });
    return { id: key.id, secret };
  };
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    createKey: async (input = {}) => (await createKeyWithId(input)).secret,
    createKeyWithId,
    close: () => app.close(),
  };
}
