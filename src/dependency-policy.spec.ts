import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minVersion, satisfies } from 'semver';

const ROOT = join(__dirname, '..');
const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as unknown;

const manifest = read('package.json') as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};
const lock = read('package-lock.json') as {
  packages: Record<
    string,
    { hasInstallScript?: boolean; optional?: boolean; engines?: { node?: string } }
  >;
};

/** The lockfile's packages with their names (the last node_modules segment of the path). */
const installed = Object.entries(lock.packages)
  .filter(([path]) => path !== '')
  .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 13), entry }));

/**
 * What .npmrc's `loglevel=error` keeps off the screen of `npm ci` must stay what it says: one
 * known engines mismatch, and no install script left undecided.
 */
describe('dependency policy', () => {
  it("decides every install script in package.json's allowScripts", () => {
    const undecided = installed
      .filter(
        ({ name, entry }) => entry.hasInstallScript && !(name in (manifest.allowScripts ?? {})),
      )
      .map(({ name }) => name);
    expect(undecided).toEqual([]);
  });

  it("installs nothing that refuses the oldest Node in package.json's engines, but the one known", () => {
    const oldest = minVersion(manifest.engines.node)!.version;
    const refusing = installed
      .filter(({ entry }) => !entry.optional && entry.engines?.node)
      .filter(({ entry }) => !satisfies(oldest, entry.engines!.node!))
      .map(({ name }) => name);
    // Loaded only by `prisma dev` (see .npmrc).
    expect(refusing).toEqual(['@prisma/streams-local']);
  });

  it('pins the packages that are released together at one version', () => {
    const pinned = { ...manifest.dependencies, ...manifest.devDependencies };
    const versionsOf = (names: string[]) => new Set(names.map((name) => pinned[name]));
    expect(versionsOf(['prisma', '@prisma/client', '@prisma/adapter-pg']).size).toBe(1);
    expect(versionsOf(['@nestjs/core', '@nestjs/common', '@nestjs/platform-express']).size).toBe(1);
    // @nestjs/testing is published less often than @nestjs/core (11.2.6 is the newest 11.2
    // release): the same minor version, whose testing module builds on that core.
    const minor = (name: string) => /^\d+\.\d+/.exec(pinned[name])?.[0];
    expect(minor('@nestjs/testing')).toBe(minor('@nestjs/core'));
  });
});
