import 'reflect-metadata';
import { loadAppConfig } from './config/app-config';
import { prepareDataFolder } from './database/embedded-data-folder';

async function main(): Promise<void> {
  const config = loadAppConfig(process.env);
  // A first start on the embedded database copies the build's template folder, on a worker
  // thread; begun here, it runs while the application's modules load below. The database module
  // awaits the same preparation and reports its error, if any.
  if (!config.DATABASE_URL) prepareDataFolder(config.GATEWAY_DATA_DIR).catch(() => undefined);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startGateway } = require('./bootstrap') as typeof import('./bootstrap');
  await startGateway(config);
}

main().catch((error: Error) => {
  // One line on stderr, whatever LOG_LEVEL says, in the CLI's format: a log shipper keeps it as one
  // event, and a person reads what to fix.
  process.stderr.write(`gateway: ${error.message.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(1);
});
