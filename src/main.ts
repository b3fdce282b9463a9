// First: V8 flags must be set before any WebAssembly is compiled and before the heap grows.
import './common/runtime/v8-flags';
import 'reflect-metadata';
import { loadAppConfig } from './config/app-config';
import { prepareDataFolder } from './database/embedded-data-folder';

async function main(): Promise<void> {
  const config = loadAppConfig(process.env);
  // A first start copies the build's database template, about a third of a second of file
  // copies; started here, on a worker thread, it overlaps the second the application's modules
  // take to load below (docs/performance.md, "Seventh pass"). Its error, if any, is the database
  // module's to report: that module awaits this same preparation.
  if (!config.DATABASE_URL) prepareDataFolder(config.GATEWAY_DATA_DIR).catch(() => undefined);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { bootstrap } = require('./bootstrap') as typeof import('./bootstrap');
  await bootstrap(config);
}

main().catch((error: Error) => {
  // One line on stderr, whatever LOG_LEVEL says, in the CLI's format: a log shipper keeps it as one
  // event, and a person reads what to fix.
  process.stderr.write(`gateway: ${error.message.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(1);
});
