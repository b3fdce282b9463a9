import { ConsoleLogger } from '@nestjs/common';

/** Nest's own loggers that report a failed start before rethrowing it to bootstrap. */
const RETHROWING_CONTEXTS = new Set(['ExceptionHandler', 'NestApplication']);

/**
 * The console logger, except that until the gateway listens, the errors Nest logs on its way to
 * rethrowing them are dropped: main.ts reports each failed start once, as one line that names
 * what to fix, instead of a stack trace followed by the same message again.
 */
export class StartupLogger extends ConsoleLogger {
  private starting = true;

  started(): void {
    this.starting = false;
  }

  override error(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    if (this.starting && typeof context === 'string' && RETHROWING_CONTEXTS.has(context)) return;
    super.error(message, ...optionalParams);
  }
}
