import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Imports point one way: a folder under src/ may import its own layer or a lower one, never a
 * higher one. Shared types live in the lowest folder that needs them (`common` for the error
 * types, `usage` for the outcome it records), so a low module never reaches up for one.
 */
const LAYERS: string[][] = [
  // 0: no feature knowledge. `generated` is the Prisma client.
  ['common', 'config', 'generated'],
  // 1: persistence.
  ['database'],
  // 2: features, each usable on its own. `audit` is written by keys and teams in their
  // transactions, `identity` resolves team roles through teams.
  [
    'audit',
    'identity',
    'keys',
    'teams',
    'auth',
    'limits',
    'usage',
    'providers',
    'throttling',
    'metrics',
    'tracing',
    'health',
  ],
  // 3: the format-neutral request pipeline that combines the features.
  ['pipeline'],
  // 4: the wire formats at the edge, one folder each, on the pipeline.
  ['formats'],
  // 5: surfaces built on everything below.
  ['admin', 'dashboard', 'models', 'openapi', 'cli'],
];

const SRC = __dirname;

function layerOf(folder: string): number {
  const index = LAYERS.findIndex((layer) => layer.includes(folder));
  if (index === -1)
    throw new Error(`src/${folder} has no layer: add it to LAYERS in architecture.spec.ts`);
  return index;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative module specifiers of static imports, re-exports, `import()` and `require()`. */
export function relativeImports(source: string): string[] {
  const pattern =
    /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]*)['"]/gm;
  return [...source.matchAll(pattern)].map((match) => match[1]);
}

interface Edge {
  file: string;
  from: string;
  to: string;
}

/** Imports that cross from one top-level src folder into another. Root files (main.ts, app.module.ts) wire everything. */
function crossFolderImports(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = relative(SRC, file).split(sep)[0];
    if (from.endsWith('.ts')) continue;
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      const to = relative(SRC, resolve(dirname(file), specifier)).split(sep)[0];
      if (to !== from) edges.push({ file: relative(SRC, file), from, to });
    }
  }
  return edges;
}

describe('architecture: imports point one way', () => {
  const edges = crossFolderImports();

  it('finds the imports it checks', () => {
    // A regex that stopped matching would make every rule below pass vacuously.
    expect(edges.some((edge) => edge.from === 'pipeline' && edge.to === 'providers')).toBe(true);
    expect(
      relativeImports(
        `import type { A } from '../a';\nimport '../b';\nconst c = await import('../c');`,
      ),
    ).toEqual(['../a', '../b', '../c']);
  });

  it('every src folder has a layer', () => {
    for (const edge of edges) {
      expect(() => layerOf(edge.from)).not.toThrow();
      if (!edge.to.endsWith('.ts')) expect(() => layerOf(edge.to)).not.toThrow();
    }
  });

  it('no folder imports from a higher layer', () => {
    const upward = edges
      .filter((edge) => edge.to.endsWith('.ts') || layerOf(edge.to) > layerOf(edge.from))
      .map((edge) => `${edge.file} imports ${edge.to}`);
    expect(upward).toEqual([]);
  });

  it('common and config import no feature folder', () => {
    const low = edges
      .filter(
        (edge) =>
          ['common', 'config'].includes(edge.from) &&
          !['common', 'config', 'generated'].includes(edge.to),
      )
      .map((edge) => `${edge.file} imports ${edge.to}`);
    expect(low).toEqual([]);
  });

  it('global enhancers (APP_GUARD, APP_INTERCEPTOR, APP_FILTER, APP_PIPE) are registered only in app.module.ts', () => {
    const elsewhere = sourceFiles(SRC)
      .filter((file) => relative(SRC, file) !== 'app.module.ts' && !file.endsWith('.spec.ts'))
      .filter((file) => /\bAPP_(GUARD|INTERCEPTOR|FILTER|PIPE)\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(elsewhere).toEqual([]);
  });
});
