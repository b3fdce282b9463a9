import type { DeploymentConfig } from '../config/gateway-config.types';
import { UpstreamError } from '../common/errors/upstream.error';
import type {
  UpstreamEmbedResult,
  NativeAdapter,
  NativeAnswer,
  NativeStreamPart,
  ProviderAdapter,
  UpstreamChatResult,
  UpstreamStreamPart,
} from '../providers/provider-adapter.interface';
import type { CanonicalEmbedRequest, CanonicalRequest } from './canonical';
import type { UpstreamSignal } from '../providers/attempt-signal';

// The two ways an attempt talks to a deployment: the canonical conversation, which the adapter
// translates, or the client's own body for a deployment of the provider whose format it is in.

/** A part of an upstream stream before the pipeline takes its usage out. */
export type UpstreamPart = UpstreamStreamPart | NativeStreamPart;

/** The pass-through side of `adapter` when this request can use it on `deployment`. */
export function passThrough(
  request: CanonicalRequest,
  deployment: DeploymentConfig,
  adapter: ProviderAdapter,
): NativeAdapter | undefined {
  return request.native?.provider === deployment.provider ? adapter.native : undefined;
}

/** Asks `deployment` for a whole answer. */
export function completeOn(
  adapter: ProviderAdapter,
  deployment: DeploymentConfig,
  request: CanonicalRequest,
  signal: UpstreamSignal,
  requestId: string,
): Promise<UpstreamChatResult | NativeAnswer> {
  const native = passThrough(request, deployment, adapter);
  if (native) return native.complete(nativeRequest(deployment, request, signal, requestId));
  return adapter.complete(chatRequest(deployment, request, signal, requestId));
}

/** Opens a stream on `deployment`: resolves once the upstream answered 2xx. */
export function streamOn(
  adapter: ProviderAdapter,
  deployment: DeploymentConfig,
  request: CanonicalRequest,
  signal: UpstreamSignal,
  requestId: string,
): Promise<AsyncIterable<readonly UpstreamPart[]>> {
  const native = passThrough(request, deployment, adapter);
  if (native) return native.stream(nativeRequest(deployment, request, signal, requestId));
  return adapter.stream(chatRequest(deployment, request, signal, requestId));
}

/** Asks an embedding deployment for one vector per input. */
export function embedOn(
  adapter: ProviderAdapter,
  deployment: DeploymentConfig,
  { inputs, dimensions, user }: CanonicalEmbedRequest,
  signal: UpstreamSignal,
  requestId: string,
): Promise<UpstreamEmbedResult> {
  // The config loader refuses embedding deployments of a provider without embeddings.
  if (!adapter.embed)
    throw new UpstreamError('invalid_response', `${deployment.provider} serves no embeddings`);
  return adapter.embed({ deployment, inputs, dimensions, user, signal, requestId });
}

function chatRequest(
  deployment: DeploymentConfig,
  { messages, parameters }: CanonicalRequest,
  signal: UpstreamSignal,
  requestId: string,
) {
  return { deployment, messages, parameters, signal, requestId };
}

function nativeRequest(
  deployment: DeploymentConfig,
  request: CanonicalRequest,
  signal: UpstreamSignal,
  requestId: string,
) {
  const { body, headers } = request.native!;
  return { deployment, body, headers, signal, requestId };
}
