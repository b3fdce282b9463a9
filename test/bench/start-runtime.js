// How `npm run start:prod` runs the gateway (package.json), read from the script itself so that
// the benchmarks run every target the same way: glibc's MALLOC_ARENA_MAX and node's own flags.
// The Dockerfile starts the image the same way; test/start-scripts.e2e-spec.ts keeps them in step.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/** { env, nodeArgs } of the start:prod script in the checkout at `root`; empty where it sets none. */
function startRuntime(root) {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const script = scripts['start:prod'] ?? '';
  const arenas = /\bMALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-(\d+)\}/.exec(script)?.[1];
  const command = /\bnode((?: --\S+)*) dist\/main\.js/.exec(script);
  // A script this reader does not understand must not quietly benchmark a plain `node`.
  if (!command)
    throw new Error(`start:prod does not run \`node [--flags] dist/main.js\`: ${script}`);
  return {
    env: arenas ? { MALLOC_ARENA_MAX: arenas } : {},
    nodeArgs: command[1].split(' ').filter(Boolean),
  };
}

module.exports = { startRuntime };
