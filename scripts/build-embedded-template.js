#!/usr/bin/env node
// Writes dist/embedded-pgdata/: an empty PGlite data folder, initialised once at build time.
// Postgres' initdb in WebAssembly takes about 4 s; copying this folder and opening it takes under
// one, so the first start on the embedded defaults is as quick as later ones
// (docs/operations.md, "Packaging"). PGlite's own dump (dumpDataDir) is smaller but takes 1.5 s
// to load, which is why the folder is kept as it is.
const { PGlite } = require('@electric-sql/pglite');
const { chmodSync, readdirSync, renameSync, rmSync } = require('node:fs');
const { join } = require('node:path');

async function main() {
  const target = join(__dirname, '..', 'dist', 'embedded-pgdata');
  const scratch = `${target}.tmp-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  try {
    const db = await PGlite.create(scratch);
    await db.close();
    readableByAll(scratch);
    rmSync(target, { recursive: true, force: true });
    renameSync(scratch, target);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
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
