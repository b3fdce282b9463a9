import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  embeddedDefaultConfig,
  loadGatewayConfig,
  parseGatewayConfig,
} from './gateway-config.loader';
import { interpolateEnv } from './interpolate-env';

describe('interpolateEnv', () => {
  const env = { KEY: 'sk-123', EMPTY: '' };

  it('replaces ${VAR} and ${VAR:-default} inside strings only', () => {
    expect(
      interpolateEnv({ a: 'Bearer ${KEY}', b: '${MISSING:-fallback}', c: 5, d: ['${KEY}'] }, env),
    ).toEqual({
      a: 'Bearer sk-123',
      b: 'fallback',
      c: 5,
      d: ['sk-123'],
    });
  });

  it('follows the shell: ":-" defaults when empty or unset, "-" only when unset, an empty ${VAR} is ""', () => {
    expect(interpolateEnv('${EMPTY:-x}', env)).toBe('x');
    expect(interpolateEnv('${MISSING:-x}', env)).toBe('x');
    expect(interpolateEnv('${EMPTY-x}', env)).toBe('');
    expect(interpolateEnv('${MISSING-x}', env)).toBe('x');
    expect(interpolateEnv('${KEY:-x}', env)).toBe('sk-123');
    expect(interpolateEnv('a${EMPTY}b', env)).toBe('ab');
    expect(() => interpolateEnv({ models: { m: [{ api_key: '${MISSING}' }] } }, env)).toThrow(
      'models.m[0].api_key: environment variable MISSING is not set',
    );
  });

  it('lets the field say that an empty variable is not allowed', () => {
    expect(() =>
      parseGatewayConfig(
        {
          models: {
            m: [{ provider: 'openai', base_url: 'http://x', api_key: '${EMPTY}', model: 'x' }],
          },
        },
        env,
      ),
    ).toThrow('models.m[0].api_key');
  });

  it('cannot change the document structure', () => {
    expect(interpolateEnv({ a: '${KEY}' }, { KEY: 'x\nb: injected' })).toEqual({
      a: 'x\nb: injected',
    });
  });
});

describe('parseGatewayConfig', () => {
  const env = { OPENAI_API_KEY: 'sk-test' };

  it('maps public models to validated deployments with defaults', () => {
    const config = parseGatewayConfig(
      {
        models: {
          'alpha-k3': [
            {
              provider: 'openai',
              base_url: 'https://api.example.com/v1/',
              api_key: '${OPENAI_API_KEY}',
              model: 'gpt-x',
              timeout_ms: 5000,
            },
            { provider: 'mock', latency_ms: 10 },
          ],
        },
      },
      env,
    );
    const [primary, fallback] = config.models.get('alpha-k3')!;
    expect(primary).toMatchObject({
      name: 'alpha-k3/0',
      provider: 'openai',
      baseUrl: 'https://api.example.com/v1',
      apiKey: 'sk-test',
      upstreamModel: 'gpt-x',
      timeoutMs: 5000,
    });
    expect(fallback).toMatchObject({
      name: 'alpha-k3/1',
      provider: 'mock',
      mock: { latencyMs: 10, chunkCount: 16, chunkDelayMs: 20 },
    });
  });

  it('accepts anthropic and gemini deployments; default_max_tokens defaults to 4096', () => {
    const config = parseGatewayConfig(
      {
        models: {
          'alpha-k3': [
            {
              provider: 'anthropic',
              base_url: 'https://api.anthropic.com/v1',
              api_key: 'k',
              model: 'claude',
              default_max_tokens: 1000,
            },
            {
              provider: 'gemini',
              base_url: 'https://generativelanguage.googleapis.com/v1beta',
              api_key: 'k',
              model: 'gemini-2.5-flash',
            },
          ],
        },
      },
      env,
    );
    const [anthropic, gemini] = config.models.get('alpha-k3')!;
    expect(anthropic).toMatchObject({
      provider: 'anthropic',
      baseUrl: 'https://api.anthropic.com/v1',
      defaultMaxTokens: 1000,
    });
    expect(gemini).toMatchObject({
      provider: 'gemini',
      upstreamModel: 'gemini-2.5-flash',
      defaultMaxTokens: 4096,
    });
  });

  it('reads anthropic_beta, the beta headers an Anthropic deployment is sent, and only there', () => {
    const anthropic = {
      provider: 'anthropic',
      base_url: 'https://api.anthropic.com/v1',
      api_key: 'k',
      model: 'claude',
    };
    const config = parseGatewayConfig(
      { models: { a: [{ ...anthropic, anthropic_beta: ['context-management-2025-06-27'] }] } },
      env,
    );
    expect(config.models.get('a')![0].anthropicBeta).toEqual(['context-management-2025-06-27']);
    expect(
      parseGatewayConfig({ models: { a: [anthropic] } }, env).models.get('a')![0].anthropicBeta,
    ).toBeUndefined();
    expect(() =>
      parseGatewayConfig({ models: { a: [{ provider: 'mock', anthropic_beta: [] }] } }, env),
    ).toThrow('models.a[0].anthropic_beta: only for provider anthropic');
    expect(() =>
      parseGatewayConfig({ models: { a: [{ ...anthropic, anthropic_beta: 'x' }] } }, env),
    ).toThrow('models.a[0].anthropic_beta');
  });

  it.each([
    [{}, 'top-level "models"'],
    [{ models: [] }, 'top-level "models"'],
    [{ models: { 'alpha-k3': [] } }, 'models.alpha-k3: expected a non-empty list'],
    [{ models: { 'alpha-k3': [{ provider: 'azure' }] } }, 'models.alpha-k3[0].provider'],
    [
      { models: { 'alpha-k3': [{ provider: 'openai', api_key: 'k', model: 'm' }] } },
      'models.alpha-k3[0].base_url',
    ],
    [
      {
        models: {
          'alpha-k3': [{ provider: 'openai', base_url: 'ftp://x', api_key: 'k', model: 'm' }],
        },
      },
      'base_url',
    ],
    [
      { models: { 'alpha-k3': [{ provider: 'openai', base_url: 'http://x', model: 'm' }] } },
      'models.alpha-k3[0].api_key',
    ],
    [{ models: { 'alpha-k3': [{ provider: 'mock', timeout_ms: 5 }] } }, 'timeout_ms'],
    [
      { models: { 'alpha-k3': [{ provider: 'anthropic', api_key: 'k', model: 'm' }] } },
      'models.alpha-k3[0].base_url',
    ],
    [
      { models: { 'alpha-k3': [{ provider: 'gemini', base_url: 'http://x', model: 'm' }] } },
      'models.alpha-k3[0].api_key',
    ],
    [
      {
        models: {
          'alpha-k3': [
            {
              provider: 'anthropic',
              base_url: 'http://x',
              api_key: 'k',
              model: 'm',
              default_max_tokens: 0,
            },
          ],
        },
      },
      'default_max_tokens',
    ],
    [{ models: { 'bad model!': [{ provider: 'mock' }] } }, 'not a valid model name'],
    [
      { models: { 'alpha-k3': [{ provider: 'mock', timout_ms: 5000 }] } },
      'models.alpha-k3[0].timout_ms: unknown field',
    ],
    [
      { models: { 'alpha-k3': [{ provider: 'mock' }, { provider: 'mock', Latency_ms: 1 }] } },
      'models.alpha-k3[1].Latency_ms: unknown field',
    ],
    [
      { models: { 'alpha-k3': [{ provider: 'mock' }] }, model_list: [] },
      'model_list: unknown field',
    ],
  ])('rejects %j with a message naming the place (%s)', (document, message) => {
    expect(() => parseGatewayConfig(document, env)).toThrow(message);
  });

  it('serves the three public models with the mock by default', () => {
    const config = embeddedDefaultConfig();
    expect([...config.models.keys()]).toEqual([
      'alpha-k3',
      'beta-v4-pro-0813',
      'beta-v4-flash-0731',
    ]);
    expect(
      [...config.models.values()].every((list) => list.length === 1 && list[0].provider === 'mock'),
    ).toBe(true);
  });
});

describe('loadGatewayConfig', () => {
  it('names the file and the unknown field of a typo', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gateway-config-')), 'gateway.yaml');
    writeFileSync(file, 'models:\n  alpha-k3:\n    - provider: mock\n      timout_ms: 5000\n');
    expect(() => loadGatewayConfig(file, {})).toThrow(
      `GATEWAY_CONFIG ${file}: models.alpha-k3[0].timout_ms: unknown field (check its spelling)`,
    );
  });
});

describe('gateway.example.yaml (production, mounted by docker-compose.yml)', () => {
  const path = join(__dirname, '..', '..', 'gateway.example.yaml');

  it('loads with only the provider key set, and routes every model to a real provider', () => {
    const config = loadGatewayConfig(path, { OPENAI_API_KEY: 'sk-example' });
    expect([...config.models.keys()]).toEqual([
      'alpha-k3',
      'beta-v4-pro-0813',
      'beta-v4-flash-0731',
    ]);
    const deployments = [...config.models.values()].flat();
    // Never an invented answer in production: no mock deployment, not even as a fallback.
    expect(deployments.map((d) => d.provider)).toEqual(['openai', 'openai', 'openai']);
    expect(deployments.every((d) => d.apiKey === 'sk-example')).toBe(true);
  });

  it('stops with the missing variable named when the provider key is not set', () => {
    expect(() => loadGatewayConfig(path, {})).toThrow(
      `GATEWAY_CONFIG ${path}: models.alpha-k3[0].api_key: environment variable OPENAI_API_KEY is not set`,
    );
  });
});

describe('gateway.mock-demo.yaml (demo and tests only)', () => {
  it('serves the three public models with the mock and needs no variable', () => {
    const config = loadGatewayConfig(join(__dirname, '..', '..', 'gateway.mock-demo.yaml'), {});
    expect([...config.models.keys()]).toEqual([
      'alpha-k3',
      'beta-v4-pro-0813',
      'beta-v4-flash-0731',
    ]);
    expect([...config.models.values()].flat().every((d) => d.provider === 'mock')).toBe(true);
  });
});
