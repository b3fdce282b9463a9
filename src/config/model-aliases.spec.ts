import { parseGatewayConfig } from './gateway-config.loader';
import { GatewayConfigService } from './gateway-config.service';
import { parseAliases, resolveAlias } from './model-aliases';

const MODELS = new Map([
  ['beta-v4-pro-0813', []],
  ['beta-v4-flash-0731', []],
]);

describe('parseAliases', () => {
  it('resolves exact names first, then the longest matching prefix', () => {
    const aliases = parseAliases(
      {
        'claude-sonnet-4-5': 'beta-v4-pro-0813',
        'claude-*': 'beta-v4-pro-0813',
        'claude-haiku-*': 'beta-v4-flash-0731',
        'claude-haiku-4-5': 'beta-v4-pro-0813',
      },
      MODELS,
    );
    expect(resolveAlias(aliases, 'claude-sonnet-4-5')).toBe('beta-v4-pro-0813');
    expect(resolveAlias(aliases, 'claude-haiku-4-5-20251001')).toBe('beta-v4-flash-0731');
    expect(resolveAlias(aliases, 'claude-haiku-4-5')).toBe('beta-v4-pro-0813');
    expect(resolveAlias(aliases, 'claude-opus-5-5')).toBe('beta-v4-pro-0813');
    expect(resolveAlias(aliases, 'gpt-5')).toBeUndefined();
    // A prefix alias covers longer names only, not the prefix without its `*`.
    expect(resolveAlias(parseAliases({ 'x-*': 'beta-v4-pro-0813' }, MODELS), 'x')).toBeUndefined();
  });

  it.each([
    [
      { fast: 'gamma' },
      'aliases.fast: unknown model "gamma" (public models: beta-v4-pro-0813, beta-v4-flash-0731)',
    ],
    [
      { 'beta-v4-pro-0813': 'beta-v4-flash-0731' },
      'aliases.beta-v4-pro-0813: shadows the public model "beta-v4-pro-0813"',
    ],
    [
      { 'beta-*': 'beta-v4-flash-0731' },
      'aliases.beta-*: shadows the public model "beta-v4-pro-0813"',
    ],
    [
      { '*': 'beta-v4-flash-0731' },
      'aliases: "*" is not a valid alias (a model name, or a prefix ending in *)',
    ],
    [
      { 'a*b': 'beta-v4-flash-0731' },
      'aliases: "a*b" is not a valid alias (a model name, or a prefix ending in *)',
    ],
    [{ fast: 3 }, 'aliases.fast: expected the name of a public model'],
    [['fast'], 'aliases: expected a mapping of alias name to public model'],
  ])('refuses %j', (value, message) => {
    expect(() => parseAliases(value, MODELS)).toThrow(message);
  });
});

describe('aliases in GATEWAY_CONFIG', () => {
  const document = {
    aliases: { 'claude-sonnet-4-5': 'alpha', 'claude-haiku-*': 'alpha' },
    models: { alpha: [{ provider: 'mock' }] },
  };

  it('are read with the models and resolved by the config service', () => {
    const service = new GatewayConfigService(parseGatewayConfig(document, {}));
    expect(service.publicModel('alpha')).toBe('alpha');
    expect(service.publicModel('claude-sonnet-4-5')).toBe('alpha');
    expect(service.publicModel('claude-haiku-4-5-20251001')).toBe('alpha');
    expect(service.publicModel('nope')).toBe('nope');
    expect([...service.exactAliases()]).toEqual([['claude-sonnet-4-5', 'alpha']]);
  });

  it('make a config with a bad alias invalid, naming it', () => {
    expect(() =>
      parseGatewayConfig({ aliases: { 'claude-*': 'beta' }, models: document.models }, {}),
    ).toThrow('aliases.claude-*: unknown model "beta"');
  });
});
