import { DeferredDateTimeFormat, withDeferredDateTimeFormat } from './deferred-date-time-format';

const OPTIONS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  timeZone: 'UTC',
};
const DATE = Date.UTC(2026, 10, 25, 4, 5, 6);
const LATER = Date.UTC(2026, 10, 26, 7, 8, 9);

/** A real DateTimeFormat that counts how many were built, to stand in for the global one. */
function countingDateTimeFormat(Real: typeof Intl.DateTimeFormat) {
  const counter = { built: 0, Counting: Real };
  counter.Counting = class Counting extends Real {
    constructor(...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      super(...args);
      counter.built++;
    }
  } as typeof Intl.DateTimeFormat;
  return counter;
}

describe('withDeferredDateTimeFormat', () => {
  const Real = Intl.DateTimeFormat;
  afterEach(() => {
    Intl.DateTimeFormat = Real;
  });

  it('returns what the load returns and puts the real constructor back, also when it throws', () => {
    expect(withDeferredDateTimeFormat(() => 42)).toBe(42);
    expect(Intl.DateTimeFormat).toBe(Real);
    expect(() =>
      withDeferredDateTimeFormat(() => {
        throw new Error('load failed');
      }),
    ).toThrow('load failed');
    expect(Intl.DateTimeFormat).toBe(Real);
  });

  it('builds the real formatter on first use only, and formats as it does', () => {
    const counter = countingDateTimeFormat(Real);
    Intl.DateTimeFormat = counter.Counting;

    const deferred = withDeferredDateTimeFormat(() => new Intl.DateTimeFormat('en-GB', OPTIONS));
    expect(deferred).toBeInstanceOf(DeferredDateTimeFormat);
    expect(counter.built).toBe(0);

    const real = new Real('en-GB', OPTIONS);
    expect(deferred.format(DATE)).toBe(real.format(DATE));
    expect(counter.built).toBe(1);
    const { format } = deferred;
    expect(format(LATER)).toBe(real.format(LATER));
    expect(deferred.formatToParts(DATE)).toEqual(real.formatToParts(DATE));
    expect(deferred.formatRange(DATE, LATER)).toBe(real.formatRange(DATE, LATER));
    expect(deferred.formatRangeToParts(DATE, LATER)).toEqual(real.formatRangeToParts(DATE, LATER));
    expect(deferred.resolvedOptions()).toEqual(real.resolvedOptions());
    expect(counter.built).toBe(1);
  });

  it('defers a call without `new` as well', () => {
    const deferred = withDeferredDateTimeFormat(() =>
      (Intl.DateTimeFormat as unknown as (...args: unknown[]) => Intl.DateTimeFormat)(
        'en-GB',
        OPTIONS,
      ),
    );
    expect(deferred).toBeInstanceOf(DeferredDateTimeFormat);
    expect(deferred.format(DATE)).toBe(new Real('en-GB', OPTIONS).format(DATE));
  });
});

describe('nest-common.preload', () => {
  it('loads @nestjs/common without building a formatter, and its logger formats as before', () => {
    const Real = Intl.DateTimeFormat;
    const counter = countingDateTimeFormat(Real);
    // Nest's own options (console-logger.service.js), in the process's locale and zone.
    const expected = new Real(undefined, {
      year: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      day: '2-digit',
      month: '2-digit',
    }).format(DATE);
    const now = jest.spyOn(Date, 'now').mockReturnValue(DATE);
    Intl.DateTimeFormat = counter.Counting;
    try {
      // A fresh module registry, so that @nestjs/common loads again, here, through the preload.
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require('./nest-common.preload');
        expect(counter.built).toBe(0);
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { ConsoleLogger } = require('@nestjs/common') as typeof import('@nestjs/common');
        const logger = new ConsoleLogger() as unknown as { getTimestamp(): string };
        expect(logger.getTimestamp()).toBe(expected);
        expect(counter.built).toBe(1);
      });
    } finally {
      Intl.DateTimeFormat = Real;
      now.mockRestore();
    }
  });
});
