import { GatewayException } from '../common/errors/gateway.exception';

/**
 * A typo in allowed_models would lock a key or a team out of every model; refuse it up front,
 * naming what is available.
 */
export function assertKnownModels(
  known: readonly string[],
  models: string[] | null | undefined,
): void {
  const unknown = (models ?? []).filter((model) => !known.includes(model));
  if (unknown.length > 0) {
    throw new GatewayException('invalid_parameter', {
      param: 'allowed_models',
      message: `Unknown model(s) in allowed_models: ${unknown.join(', ')}. Available models: ${known.join(', ')}.`,
    });
  }
}
