import type { LoggerService } from '@nestjs/common';
import { StartupLogger } from './startup.logger';

function capturing(): { target: LoggerService; lines: string[] } {
  const lines: string[] = [];
  const at =
    (level: string) =>
    (message: unknown, ...params: unknown[]) =>
      lines.push(`${level} [${String(params.at(-1))}] ${String(message)}`);
  return {
    lines,
    target: { log: at('log'), error: at('error'), warn: at('warn'), debug: at('debug') },
  };
}

describe('StartupLogger', () => {
  it("sends Nest's module and route listing at debug, everything else at its own level", () => {
    const { target, lines } = capturing();
    const logger = new StartupLogger();
    logger.writeTo(target);
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('CompletionsController {/v1}:', 'RoutesResolver');
    logger.log('Mapped {/v1/chat/completions, POST} route', 'RouterExplorer');
    logger.log('Nest application successfully started', 'NestApplication');
    logger.warn('GATEWAY_CONFIG is not set', 'GatewayConfigService');
    expect(lines).toEqual([
      'debug [InstanceLoader] AppModule dependencies initialized',
      'debug [RoutesResolver] CompletionsController {/v1}:',
      'debug [RouterExplorer] Mapped {/v1/chat/completions, POST} route',
      'log [NestApplication] Nest application successfully started',
      'warn [GatewayConfigService] GATEWAY_CONFIG is not set',
    ]);
  });

  it('drops the errors Nest logs before rethrowing a failed start, until the gateway listens', () => {
    const { target, lines } = capturing();
    const logger = new StartupLogger();
    logger.writeTo(target);
    logger.error('connect ECONNREFUSED', undefined, 'ExceptionHandler');
    logger.error('a request failed', undefined, 'Errors');
    logger.started();
    logger.error('after start', undefined, 'ExceptionHandler');
    expect(lines).toEqual([
      'error [Errors] a request failed',
      'error [ExceptionHandler] after start',
    ]);
  });
});
