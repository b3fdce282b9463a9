import { prettyTransport } from './pino-options';

describe('prettyTransport', () => {
  it('names pino-pretty as the transport where it is installed', () => {
    expect(prettyTransport()).toEqual({ target: 'pino-pretty', options: { singleLine: true } });
  });

  it('says what to do where the development dependencies are not installed', () => {
    const missing = () => {
      throw Object.assign(new Error("Cannot find module 'pino-pretty'"), {
        code: 'MODULE_NOT_FOUND',
      });
    };
    expect(() => prettyTransport(missing)).toThrow(
      /^LOG_FORMAT=pretty needs pino-pretty, a development dependency .*set LOG_FORMAT=json/,
    );
  });
});
