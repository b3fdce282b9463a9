import type { DeploymentConfig } from '../config/gateway-config.types';

/**
 * A deployment's configured `headers` (docs/providers-and-routing.md), names lower-cased: the
 * adapter sets its own headers (the API key above all) in lower case after these, so a configured
 * `Authorization` or `X-Api-Key` can never ride along next to the real one.
 */
export function configuredHeaders(
  deployment: Pick<DeploymentConfig, 'headers'>,
): Record<string, string> {
  const headers = deployment.headers;
  if (!headers) return NO_HEADERS;
  // Once per deployment's headers object, not per upstream call: a reloaded config brings new ones.
  let lowered = LOWERED.get(headers);
  if (!lowered) {
    lowered = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    LOWERED.set(headers, lowered);
  }
  return lowered;
}

const NO_HEADERS: Record<string, string> = Object.freeze({});
const LOWERED = new WeakMap<Record<string, string>, Record<string, string>>();
