import { loadAppConfig } from './app-config';
import { parseTrustProxy } from './trust-proxy';

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['0', false],
    ['1', 1],
    ['2', 2],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.7', ['10.0.0.0/8', '192.168.1.7']],
    ['loopback,uniquelocal,fd00::/8,::1', ['loopback', 'uniquelocal', 'fd00::/8', '::1']],
  ])('takes %j as Express takes it', (value, expected) => {
    expect(parseTrustProxy(value)).toEqual(expected);
  });

  it.each([
    ['true', /any client choose its address/],
    ['101', /at most 100/],
    ['10.0.0.0/33', /"10.0.0.0\/33" is not/],
    ['::/129', /is not/],
    ['proxy.internal', /"proxy.internal" is not/],
    ['10.0.0.1,', /"" is not/],
    ['10.0.0.0/8/1', /is not/],
  ])('refuses %j', (value, message) => {
    expect(() => parseTrustProxy(value)).toThrow(message);
  });

  it('stops the start with one line naming the variable', () => {
    expect(() => loadAppConfig({ TRUST_PROXY: 'yes' })).toThrow(
      /^Invalid environment: TRUST_PROXY: "yes" is not a hop count/,
    );
    expect(loadAppConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe('1');
    expect(loadAppConfig({}).TRUST_PROXY).toBeUndefined();
  });
});
