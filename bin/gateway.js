#!/usr/bin/env node
// Entry point of `npx gateway ...`: runs the compiled CLI (npm run build makes dist/).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'cli', 'main.js');
if (!existsSync(cli)) {
  process.stderr.write('gateway: the project is not built yet; run `npm run build` first.\n');
  process.exit(1);
}
require(cli);
