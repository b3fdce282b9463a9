import { loadAppConfig } from './app-config';

describe('loadAppConfig', () => {
  it.each([
    [{ PORT: 'abc' }, 'Invalid environment: PORT must be an integer number'],
    [{ PORT: '' }, 'Invalid environment: PORT must be an integer number'],
    [{ PORT: '99999' }, 'Invalid environment: PORT must not be greater than 65535'],
    [{ HOST: '' }, 'Invalid environment: HOST should not be empty'],
    [
      { DATABASE_URL: 'localhost:5432/gateway' },
      'Invalid environment: DATABASE_URL must be a postgresql://',
    ],
  ])('names the variable of %j in one line', (env, message) => {
    expect(() => loadAppConfig(env)).toThrow(message);
    try {
      loadAppConfig(env);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('reports every bad variable once, on one line', () => {
    expect(() => loadAppConfig({ PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(
      /^Invalid environment: PORT must be an integer number; LOG_LEVEL must be one of the following values: .*$/,
    );
  });

  it('never echoes the database URL, which holds a password', () => {
    expect(() => loadAppConfig({ DATABASE_URL: 'mysql://u:s3cret@h/db' })).toThrow(/^(?!.*s3cret)/);
  });

  it('ends dashboard sessions 12 hours after sign-in unless DASHBOARD_SESSION_MAX_MS says otherwise', () => {
    expect(loadAppConfig({}).DASHBOARD_SESSION_MAX_MS).toBe(43_200_000);
    expect(loadAppConfig({ DASHBOARD_SESSION_MAX_MS: '3600000' }).DASHBOARD_SESSION_MAX_MS).toBe(
      3_600_000,
    );
    expect(() => loadAppConfig({ DASHBOARD_SESSION_MAX_MS: 'forever' })).toThrow(
      'Invalid environment: DASHBOARD_SESSION_MAX_MS must be an integer number',
    );
    expect(() => loadAppConfig({ DASHBOARD_SESSION_MAX_MS: '0' })).toThrow(
      'Invalid environment: DASHBOARD_SESSION_MAX_MS must not be less than 1000',
    );
  });

  it('listens on this machine only unless HOST says otherwise', () => {
    expect(loadAppConfig({}).HOST).toBe('127.0.0.1');
    expect(loadAppConfig({ HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
  });

  it('accepts a postgres URL and treats an empty DATABASE_URL as unset (embedded mode)', () => {
    expect(loadAppConfig({ DATABASE_URL: 'postgres://u:p@h:5432/db' }).DATABASE_URL).toBe(
      'postgres://u:p@h:5432/db',
    );
    expect(loadAppConfig({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });
});
