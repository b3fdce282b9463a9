import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * Compiles src/ into dist/ (tsc, tsconfig.build.json), for the specs that run the built gateway
 * in its own Node process, as production does.
 */
export function compileGateway(): void {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    { cwd: ROOT },
  );
}
