import { ConsoleLogger, LoggerService } from '@nestjs/common';

/** Nest's own loggers that report a failed start before rethrowing it to bootstrap. */
const RETHROWING_CONTEXTS = new Set(['ExceptionHandler', 'NestApplication']);
/** Nest's listing of every module, controller and route at start: for a developer, at debug. */
const WIRING_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

type Level = 'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal';

/**
 * The app's logger. Until the gateway listens, the errors Nest logs on its way to rethrowing them
 * are dropped: main.ts reports each failed start once, as one line that names what to fix, instead
 * of a stack trace followed by the same message again. Nest's listing of modules and routes goes
 * out at debug, so that a start prints a few lines and the demo key stays easy to find. Everything else goes to
 * the console until `writeTo` hands it the JSON logger (nestjs-pino), which exists only once the
 * app is created.
 */
export class StartupLogger extends ConsoleLogger {
  private starting = true;
  private target?: LoggerService;

  started(): void {
    this.starting = false;
  }

  writeTo(target: LoggerService): void {
    this.target = target;
  }

  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    const wiring = typeof context === 'string' && WIRING_CONTEXTS.has(context);
    this.write(wiring ? 'debug' : 'log', message, optionalParams);
  }

  override warn(message: unknown, ...optionalParams: unknown[]): void {
    this.write('warn', message, optionalParams);
  }

  override debug(message: unknown, ...optionalParams: unknown[]): void {
    this.write('debug', message, optionalParams);
  }

  override verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.write('verbose', message, optionalParams);
  }

  override fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.write('fatal', message, optionalParams);
  }

  override error(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    if (this.starting && typeof context === 'string' && RETHROWING_CONTEXTS.has(context)) return;
    this.write('error', message, optionalParams);
  }

  private write(level: Level, message: unknown, optionalParams: unknown[]): void {
    const target = this.target;
    if (!target) return super[level](message, ...optionalParams);
    (target[level] ?? target.log).call(target, message, ...optionalParams);
  }
}
