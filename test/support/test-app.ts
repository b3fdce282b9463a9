import { Test, TestingModuleBuilder } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import type { AddressInfo } from 'node:net';
import { startGateway } from '../../src/bootstrap';
import { loadAppConfig } from '../../src/config/app-config';
import { parseGatewayConfig } from '../../src/config/gateway-config.loader';
import { GatewayConfigService } from '../../src/config/gateway-config.service';
import { VirtualKeyService } from '../../src/keys/virtual-key.service';
import type { CreateVirtualKeyInput } from '../../src/keys/virtual-key.types';

export interface TestAppOptions {
  /** The `models:` mapping of a gateway config file; the embedded mock defaults when absent. */
  models?: Record<string, unknown[]>;
  /** The `aliases:` mapping of the same file (with `models` only). */
  aliases?: Record<string, string>;
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

/**
 * Starts the real gateway as main.ts does (startGateway), on a free port of 127.0.0.1, with the
 * process's environment plus `options.env`; the module is compiled through Nest's testing module
 * so that `models` and `override` can replace providers.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadAppConfig({ ...process.env, ...options.env, HOST: '127.0.0.1', PORT: '0' });
  // nestjs-pino keeps the first app's logger for the whole process (one app per process in
  // production); each test app gets its own, with its LOG_LEVEL and the stdout of the moment,
  // through the hook the library keeps for tests.
  __resetOutOfContextForTests();
  const app = await startGateway(config, async (module, adapter, appOptions) => {
    let builder = Test.createTestingModule({ imports: [module] });
    if (options.models) {
      builder = builder
        .overrideProvider(GatewayConfigService)
        .useValue(
          new GatewayConfigService(
            parseGatewayConfig({ models: options.models, aliases: options.aliases }, process.env),
          ),
        );
    }
    if (options.override) builder = options.override(builder);
    const moduleRef = await builder.compile();
    return moduleRef.createNestApplication<NestExpressApplication>(adapter, appOptions);
  });
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
