import type { DeploymentConfig } from '../config/gateway-config.types';

/**
 * A deployment's configured `headers` (docs/providers-and-routing.md), names lower-cased: the
 * adapter sets its own headers (the API key above all) in lower case after these, so a configured
 * `Authorization` or `X-Api-Key` can never ride along next to the real one.
 */
export function configuredHeaders(
  deployment: Pick<DeploymentConfig, 'headers'>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(deployment.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
}
