#!/usr/bin/env node
// Runs `prisma generate` on machines without internet access. Prisma 7's CLI insists on its
// schema-engine binary before any command, though generate never uses it; pointing
// PRISMA_SCHEMA_ENGINE_BINARY at an existing file satisfies the check. Where a real engine is
// configured, it is left alone.
//
// Then it rewrites how the generated client loads its query compiler's WebAssembly
// (releaseCompilerSource below).
const { spawnSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
if (result.status !== 0) process.exit(result.status ?? 1);

/**
 * The generated client reads the compiler's WebAssembly from a module of base64 text that it
 * loads with `import()`. Node keeps that module for the life of the process: the 2.2 MiB string
 * it exports (held by the module namespace) and its 2.2 MiB source (held for the module's
 * export names). The gateway compiles the WebAssembly once, so both are dead weight: 4.4 MiB of
 * live heap, which the old generation's growth doubles under load (docs/performance.md, "Fifth
 * pass"). The rewrite loads the module with `require()` and takes it out of the module cache
 * again, so both strings are garbage once the WebAssembly is compiled. What is compiled, and
 * when, is unchanged.
 *
 * Prisma's versions are pinned; if an upgrade changes the generated line, this fails the build
 * instead of silently keeping the 4.4 MiB.
 */
function releaseCompilerSource(file) {
  const source = readFileSync(file, 'utf8');
  const pattern =
    /const \{ wasm \} = await import\(("@prisma\/client\/runtime\/query_compiler_\w+\.postgresql\.wasm-base64\.js")\)/;
  const match = pattern.exec(source);
  if (!match) {
    process.stderr.write(
      `prisma-generate: ${file} no longer loads the query compiler as expected ` +
        '(see releaseCompilerSource in scripts/prisma-generate.js)\n',
    );
    process.exit(1);
  }
  const replacement = [
    `const path = require.resolve(${match[1]})`,
    '    // Loaded and dropped from the module cache, so that its text is freed once compiled',
    '    // (scripts/prisma-generate.js).',
    '    const { wasm } = require(path) as { wasm: string }',
    '    const loaded = require.cache[path]',
    '    delete require.cache[path]',
    '    const index = loaded ? module.children.indexOf(loaded) : -1',
    '    if (index >= 0) module.children.splice(index, 1)',
  ].join('\n');
  writeFileSync(file, source.replace(match[0], replacement));
}

releaseCompilerSource(join(__dirname, '..', 'src', 'generated', 'prisma', 'internal', 'class.ts'));
