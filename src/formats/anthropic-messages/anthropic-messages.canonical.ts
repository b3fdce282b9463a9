import type { IncomingHttpHeaders } from 'node:http';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import type { CanonicalRequest } from '../../pipeline/canonical';
import { toChatRequest } from './anthropic-messages.request';
import type { MessagesRequest } from './anthropic-messages.types';
import { invalidField } from './dto/message-field';

/** The client headers an Anthropic deployment receives (the adapter filters the betas). */
const FORWARDED_HEADERS = ['anthropic-beta', 'anthropic-version'] as const;

export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string' && value !== '') forwarded[name] = value;
  }
  return forwarded;
}

/**
 * A validated Messages body as the pipeline's request: the client's own body for Anthropic
 * deployments (pass-through), its translation for the others, chosen per attempt.
 *
 * @param deployments The deployments of the public model it names, to tell whether a translated
 *   deployment could serve it: content that has no chat form (a document by URL) is refused up
 *   front then, rather than have a model answer about what it never saw.
 */
export function toCanonicalRequest(
  body: MessagesRequest,
  headers: IncomingHttpHeaders,
  deployments: readonly DeploymentConfig[] | undefined,
): CanonicalRequest {
  const { messages, parameters, untranslatable } = toChatRequest(body);
  if (untranslatable.length > 0 && deployments?.some((d) => d.provider !== 'anthropic')) {
    const [{ path, problem }] = untranslatable;
    throw invalidField(path, `${problem}, and model ${body.model} has others`);
  }
  return {
    endpoint: 'messages',
    model: body.model,
    messages,
    parameters,
    endUser: body.metadata?.user_id ?? undefined,
    native: {
      provider: 'anthropic',
      body: body as unknown as Record<string, unknown>,
      headers: forwardedHeaders(headers),
    },
  };
}
