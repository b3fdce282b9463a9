/**
 * An `Intl.DateTimeFormat` that builds the real formatter the first time it is used.
 *
 * The first `Intl.DateTimeFormat` a process builds pages in ICU's locale and calendar data from
 * the node binary: about 7 MiB of RSS that stays (5.4 MiB of file pages, 2 MiB of heap;
 * docs/performance.md, "Fifth pass"). @nestjs/common builds two when it loads, one for
 * `ConsoleLogger` and one for `Logger`, and the gateway never formats a date with either once it
 * runs: its log lines are pino's JSON with epoch times. Deferred, they cost nothing unless a
 * console line is printed, and then they format exactly as before.
 */
export class DeferredDateTimeFormat {
  private formatter?: Intl.DateTimeFormat;

  constructor(
    private readonly Real: typeof Intl.DateTimeFormat,
    private readonly args: ConstructorParameters<typeof Intl.DateTimeFormat>,
  ) {}

  /** Bound, like the real `format` getter, so `const { format } = formatter` works too. */
  get format(): Intl.DateTimeFormat['format'] {
    return this.real().format;
  }

  formatToParts(date?: Date | number): Intl.DateTimeFormatPart[] {
    return this.real().formatToParts(date);
  }

  formatRange(start: Date | number, end: Date | number): string {
    return this.real().formatRange(start, end);
  }

  formatRangeToParts(start: Date | number, end: Date | number): Intl.DateTimeRangeFormatPart[] {
    return this.real().formatRangeToParts(start, end);
  }

  resolvedOptions(): Intl.ResolvedDateTimeFormatOptions {
    return this.real().resolvedOptions();
  }

  private real(): Intl.DateTimeFormat {
    return (this.formatter ??= new this.Real(...this.args));
  }
}

/**
 * Runs `load` (a `require` of a module that builds formatters as it loads) with
 * `Intl.DateTimeFormat` deferred, and puts the real constructor back afterwards, also when `load`
 * throws. Only construction during `load` is deferred; nothing else sees the stand-in.
 */
export function withDeferredDateTimeFormat<T>(load: () => T): T {
  const Real = Intl.DateTimeFormat;
  function Deferred(...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
    return new DeferredDateTimeFormat(Real, args);
  }
  Intl.DateTimeFormat = Deferred as unknown as typeof Intl.DateTimeFormat;
  try {
    return load();
  } finally {
    Intl.DateTimeFormat = Real;
  }
}
