// How `npm run start:prod` runs the gateway (package.json), read from the script itself so the
// benchmarks run every target the same way: glibc's MALLOC_ARENA_MAX and node's own flags. The
// Dockerfile starts the image the same way; test/start-scripts.e2e-spec.ts keeps the three in step.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/** Plain `node dist/main.js`: no MALLOC_ARENA_MAX, no node flags. */
const PLAIN_RUNTIME = Object.freeze({ env: Object.freeze({}), nodeArgs: Object.freeze([]) });

/** The runtime a benchmark setting asks for: `plain`, or (anything else) start:prod's. */
function runtimeFor(root, setting) {
  return setting === 'plain' ? PLAIN_RUNTIME : startRuntime(root);
}

/** { env, nodeArgs } of the start:prod script in the checkout at `root`; empty where it sets none. */
function startRuntime(root) {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const script = scripts['start:prod'] ?? '';
  const arenas = /\bMALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-(\d+)\}/.exec(script)?.[1];
  const command = /\bnode((?: --\S+)*) dist\/main\.js/.exec(script);
  // A script this reader does not understand must not quietly benchmark a plain `node`.
  if (!command)
    throw new Error(`start:prod does not run \`node [--flags] dist/main.js\`: ${script}`);
  const flags = command[1];
  return {
    env: arenas ? { MALLOC_ARENA_MAX: arenas } : {},
    nodeArgs: flags.split(' ').filter(Boolean),
  };
}

/**
 * The shell's variables as a target inherits them: without MALLOC_ARENA_MAX, which each target
 * gets from its runtime alone, or a `plain` target would not be plain (the image sets one).
 */
function inheritedEnv(env) {
  const inherited = { ...env };
  delete inherited.MALLOC_ARENA_MAX;
  return inherited;
}

module.exports = { PLAIN_RUNTIME, inheritedEnv, runtimeFor, startRuntime };
