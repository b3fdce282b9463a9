#!/usr/bin/env node
// Writes dist/embedded-pgdata/: a PGlite data folder, initialised and migrated once at build time.
// Postgres' initdb in WebAssembly takes about 4 s and the migrations a further 0.2-0.4 s; copying
// this folder and opening it takes well under one, so the first start on the embedded defaults is
// about as quick as later ones (docs/operations.md, "Packaging"). PGlite's own dump (dumpDataDir)
// is smaller but takes 1.5 s to load, which is why the folder is kept as it is.
//
// Runs after tsc: it applies prisma/migrations with the gateway's own runner
// (dist/database/migration-runner.js), over a socket server as at run time, so the folder records
// them in _prisma_migrations exactly as a start would. A start checks them as usual and applies
// any migration newer than the build.
const { PGlite } = require('@electric-sql/pglite');
const { PGLiteSocketServer } = require('@electric-sql/pglite-socket');
const { chmodSync, mkdtempSync, readdirSync, renameSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { MIGRATIONS_DIR } = require('../dist/database/database-connection');
const { runMigrations } = require('../dist/database/migration-runner');
const { PrismaService } = require('../dist/database/prisma.service');
const { UsagePartitions } = require('../dist/usage/usage-partitions.service');
const { loadAppConfig } = require('../dist/config/app-config');

async function main() {
  const target = join(__dirname, '..', 'dist', 'embedded-pgdata');
  const scratch = `${target}.tmp-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  try {
    const db = await PGlite.create(scratch);
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    readableByAll(scratch);
    rmSync(target, { recursive: true, force: true });
    renameSync(scratch, target);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function migrate(db) {
  const socketDir = mkdtempSync(join(tmpdir(), 'gateway-template-'));
  const server = new PGLiteSocketServer({ db, path: join(socketDir, '.s.PGSQL.5432') });
  await server.start();
  try {
    const url = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&sslmode=disable`;
    const report = await runMigrations(url, MIGRATIONS_DIR);
    console.log(`build-embedded-template: ${report.applied.length} migration(s) applied`);
    // The usage partitions of this month and the next two, as a start would make them: a first
    // start within that time then only checks them, and its first queries (the demo key's) do not
    // wait behind three partition transactions.
    // `embedded` set, as at run time: PGlite takes no startup parameters (no statement_timeout).
    // The settings' defaults: the template must not depend on the environment it was built in.
    const config = loadAppConfig({});
    const prisma = new PrismaService({ url, embedded: {} }, config);
    try {
      const { created } = await new UsagePartitions(prisma, config).maintain();
      console.log(`build-embedded-template: usage partitions ${created.join(', ')}`);
    } finally {
      await prisma.$disconnect();
    }
  } finally {
    await server.stop();
    rmSync(socketDir, { recursive: true, force: true });
  }
}

/**
 * Files 0644, folders 0755: the image builds as root and runs as `node`, which must be able to
 * read the template to copy it; nobody but root may change it. The copy is private anyway: it
 * lands inside GATEWAY_DATA_DIR, a 0700 folder.
 */
function readableByAll(folder) {
  chmodSync(folder, 0o755);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) readableByAll(path);
    else chmodSync(path, 0o644);
  }
}

main().catch((error) => {
  console.error(`build-embedded-template: ${error.message}`);
  process.exit(1);
});
