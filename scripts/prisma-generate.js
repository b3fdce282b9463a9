#!/usr/bin/env node
// Runs `prisma generate` on machines without internet access. Prisma 7's CLI insists on its
// schema-engine binary before any command, though generate never uses it; pointing
// PRISMA_SCHEMA_ENGINE_BINARY at an existing file satisfies the check. Where a real engine is
// configured, it is left alone. The generated client is used as Prisma writes it.
const { spawnSync } = require('node:child_process');

const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
