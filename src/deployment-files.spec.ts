import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { AppConfig } from './config/app-config';
import { readSeedKeys } from './cli/seed-keys';
import { loadGatewayConfig } from './config/gateway-config.loader';

// docker-compose.yml, .env.example, the Dockerfile and the production checklist of
// docs/operations.md describe one deployment; these tests keep them in step. The stack itself is
// run by scripts/compose-smoke.sh (docs/operations.md, "The compose smoke test").

const root = join(__dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const composeText = read('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as {
  services: Record<
    string,
    { environment?: Record<string, string | null>; ports?: string[]; stop_grace_period?: string }
  >;
};
const envExample = read('.env.example');
/** Every variable .env.example names, set or commented out, with the value it shows. */
const exampleValues = new Map(
  [...envExample.matchAll(/^#?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1], m[2]]),
);
/** `${NAME...}` references of the compose file, with their `:-` default when they have one. */
const interpolated = [...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)(?::-([^}]*))?/g)].map((m) => ({
  name: m[1],
  fallback: m[2],
}));
const gatewayEnv = compose.services.gateway.environment!;
const migrateEnv = compose.services.migrate.environment!;

describe('docker-compose.yml and .env.example', () => {
  it('names in .env.example every variable the compose file reads or passes on', () => {
    const passedOn = [gatewayEnv, migrateEnv].flatMap((env) =>
      Object.keys(env).filter((name) => env[name] === null),
    );
    expect(passedOn).toContain('OPENAI_API_KEY');
    const missing = [...interpolated.map((v) => v.name), ...passedOn].filter(
      (name) => !exampleValues.has(name),
    );
    expect(missing).toEqual([]);
  });

  it('shows in .env.example the defaults the compose file and the gateway apply', () => {
    const defaults = new AppConfig() as unknown as Record<string, unknown>;
    const wrong: string[] = [];
    for (const [name, shown] of exampleValues) {
      if (!shown) continue;
      const fromCompose = interpolated.find((v) => v.name === name)?.fallback;
      const expected =
        fromCompose ?? (defaults[name] === undefined ? undefined : String(defaults[name]));
      if (expected !== undefined && expected !== shown) wrong.push(`${name}=${shown}: ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it('covers every setting of the production checklist', () => {
    const ops = read('docs/operations.md');
    const checklist = ops.slice(
      ops.indexOf('## Production checklist'),
      ops.indexOf('\n## ', ops.indexOf('## Production checklist') + 1),
    );
    const named = new Set(
      [...checklist.matchAll(/`([A-Z][A-Z0-9_]{2,})(?:=[^`]*)?`/g)].map((m) => m[1]),
    );
    // Set by the compose file itself, or not used with it.
    const byCompose = ['DATABASE_URL', 'REDIS_URL', 'GATEWAY_CONFIG', 'GATEWAY_SEED_FILE'];
    // The embedded database's folder, the migrate job's work, the image's HOST=0.0.0.0.
    const notWithCompose = ['GATEWAY_DATA_DIR', 'DB_MIGRATE_ON_START', 'HOST'];
    expect(named.size).toBeGreaterThan(10);
    for (const name of byCompose)
      expect(gatewayEnv[name] ?? migrateEnv[name]).toEqual(expect.any(String));
    const missing = [...named].filter(
      (name) =>
        !exampleValues.has(name) && !byCompose.includes(name) && !notWithCompose.includes(name),
    );
    expect(missing).toEqual([]);
  });

  it('requires ADMIN_API_KEY and POSTGRES_PASSWORD with a message, never a default', () => {
    for (const name of ['ADMIN_API_KEY', 'POSTGRES_PASSWORD']) {
      const uses = [...composeText.matchAll(new RegExp(`\\$\\{${name}([^}]*)\\}`, 'g'))];
      expect(uses.length).toBeGreaterThan(0);
      for (const use of uses) expect(use[1]).toMatch(/^:\?set \S+ in \.env/);
    }
  });

  it("publishes the gateway on the host's loopback by default", () => {
    expect(compose.services.gateway.ports).toEqual([
      '${GATEWAY_BIND:-127.0.0.1}:${GATEWAY_PORT:-8080}:8080',
    ]);
    for (const [name, service] of Object.entries(compose.services))
      if (name !== 'gateway' && name !== 'proxy') expect(service.ports).toBeUndefined();
  });

  it('gives the gateway a stop grace period longer than its drain timeout', () => {
    const grace = /^\$\{GATEWAY_STOP_GRACE_PERIOD:-(\d+)s\}$/.exec(
      compose.services.gateway.stop_grace_period!,
    );
    expect(grace).not.toBeNull();
    const drainMs = new AppConfig().SHUTDOWN_DRAIN_TIMEOUT_MS;
    expect(Number(grace![1]) * 1000).toBeGreaterThan(drainMs + 5_000);
  });

  it('seeds from a file that holds no key by default', () => {
    expect(readSeedKeys({ GATEWAY_SEED_FILE: join(root, 'deploy', 'seed-keys.yaml') })).toEqual([]);
  });
});

describe('examples/gateway.providers.yaml', () => {
  const path = join(root, 'examples', 'gateway.providers.yaml');

  it('routes to OpenAI, Anthropic and Gemini with the three keys compose passes on', () => {
    const keys = { OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: 'sk-a', GEMINI_API_KEY: 'g-k' };
    for (const name of Object.keys(keys)) expect(gatewayEnv).toHaveProperty(name, null);
    const deployments = [...loadGatewayConfig(path, keys).models.values()].flat();
    expect(deployments.map((d) => [d.provider, d.apiKey])).toEqual([
      ['openai', 'sk-o'],
      ['anthropic', 'sk-a'],
      ['gemini', 'g-k'],
      ['gemini', 'g-k'],
    ]);
  });

  it('names a missing key', () => {
    expect(() => loadGatewayConfig(path, { OPENAI_API_KEY: 'sk-o', GEMINI_API_KEY: 'g' })).toThrow(
      'environment variable ANTHROPIC_API_KEY is not set',
    );
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('takes its base image as a build argument, the default the compose file passes', () => {
    const arg = /^ARG BASE_IMAGE=(\S+)$/m.exec(dockerfile.slice(0, dockerfile.indexOf('\nFROM ')));
    expect(arg).not.toBeNull();
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms).toEqual(['${BASE_IMAGE}', '${BASE_IMAGE}']);
    expect(interpolated.find((v) => v.name === 'GATEWAY_BASE_IMAGE')?.fallback).toBe(arg![1]);
  });

  it('listens on every interface of the container (the gateway itself defaults to loopback)', () => {
    const stage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(stage).toMatch(/^ENV [^\n]*\bHOST=0\.0\.0\.0\b/m);
  });
});
