#!/usr/bin/env node
// `npm start` rebuilds only when a build input is newer than dist/.build-stamp (written by the
// last successful `npm run build`), so a start after a build takes the time of Node alone.
//   node scripts/build-stamp.js write   -- at the end of `npm run build`
//   node scripts/build-stamp.js check   -- exit 0 when dist/ is current, 1 when a build is needed
const { readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const stamp = join(root, 'dist', '.build-stamp');
// src/generated is Prisma's output, derived from prisma/ (checked) and rewritten by `npm test`.
const skip = new Set([join(root, 'src', 'generated')]);
const inputs = [
  'src',
  'web',
  'prisma',
  'scripts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'prisma.config.ts',
];

function newest(path) {
  if (skip.has(path)) return 0;
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce(
    (latest, name) => Math.max(latest, newest(join(path, name))),
    stats.mtimeMs,
  );
}

const command = process.argv[2];
if (command === 'write') {
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
} else if (command === 'check') {
  let built;
  try {
    built = statSync(stamp).mtimeMs;
    statSync(join(root, 'dist', 'main.js'));
  } catch {
    // Said before the build's own output, which would otherwise look like a hang or a failure.
    console.log(
      'npm start: first start, building the gateway first (npm run build, about 15 s; later starts skip it)...',
    );
    process.exit(1);
  }
  const changed = inputs.map((input) => newest(join(root, input))).some((mtime) => mtime > built);
  if (changed) console.log('npm start: the sources changed since the last build, rebuilding...');
  process.exit(changed ? 1 : 0);
} else {
  console.error('usage: build-stamp.js write|check');
  process.exit(2);
}
