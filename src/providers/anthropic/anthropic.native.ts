import { UpstreamError } from '../../common/errors/upstream.error';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import { configuredHeaders } from '../configured-headers';
import type { NativeStreamPart, TokenUsage } from '../provider-adapter.interface';
import { anthropicErrorFromEvent } from './anthropic.errors';
import { ANTHROPIC_VERSION, anthropicUrl } from './anthropic.request';
import { AnthropicUsage, mapAnthropicUsage } from './anthropic.response';

// Pass-through: a client that speaks the Messages API, a deployment that does too. The body goes
// upstream as the client's JSON with only `model` replaced, and the answer or the events come
// back as they came; the gateway only reads the usage from them. Pure: no I/O.

/** The client's JSON with the deployment's model, in the place the client's `model` had. */
export function nativeBody(
  body: Record<string, unknown>,
  deployment: Pick<DeploymentConfig, 'upstreamModel'>,
): string {
  return JSON.stringify(Object.assign({}, body, { model: deployment.upstreamModel }));
}

/**
 * `anthropic-version` as the client sent it (the body is written for it), else the adapter's;
 * `anthropic-beta` as sent, or only the values the deployment's `anthropic_beta` lists. The
 * deployment's configured headers apply on top, and the key and content headers last.
 */
export function nativeHeaders(
  deployment: Pick<DeploymentConfig, 'apiKey' | 'headers' | 'anthropicBeta'>,
  requestId: string,
  client: Record<string, string>,
): Record<string, string> {
  const headers: Record<string, string> = {
    'anthropic-version': client['anthropic-version'] || ANTHROPIC_VERSION,
  };
  const betas = filterBetas(client['anthropic-beta'], deployment.anthropicBeta);
  if (betas) headers['anthropic-beta'] = betas;
  return Object.assign(headers, configuredHeaders(deployment), {
    'x-api-key': deployment.apiKey ?? '',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-request-id': requestId,
  });
}

/** A comma-separated list, kept in order; `allowed` (when the deployment sets one) filters it. */
export function filterBetas(
  sent: string | undefined,
  allowed: readonly string[] | undefined,
): string | undefined {
  if (!sent) return undefined;
  if (!allowed) return sent;
  const kept = sent
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => beta !== '' && allowed.includes(beta));
  return kept.length > 0 ? kept.join(',') : undefined;
}

/** The usage of a pass-through JSON answer; anything but a message is an invalid answer. */
export function nativeAnswerUsage(body: unknown): TokenUsage {
  const message = body as { type?: unknown; usage?: AnthropicUsage } | null;
  if (!message || typeof message !== 'object' || message.type !== 'message')
    throw new UpstreamError('invalid_response', 'Anthropic answer is not a message');
  return mapAnthropicUsage(message.usage);
}

/** Anthropic's token counting: POST {base_url}/messages/count_tokens, the same body shape. */
export function countTokensUrl(deployment: Pick<DeploymentConfig, 'baseUrl'>): string {
  return `${anthropicUrl(deployment)}/count_tokens`;
}

/** `{"input_tokens": N}`; anything else is an invalid answer. */
export function countTokensOf(body: unknown): number {
  const count = (body as { input_tokens?: unknown } | null)?.input_tokens;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0)
    throw new UpstreamError('invalid_response', 'count_tokens answer without input_tokens');
  return count;
}

type NativePart = NativeStreamPart & { type: 'native' };

/**
 * Relays every event of a pass-through stream, and reads the usage: message_start's input side,
 * message_delta's cumulative counts, handed on with each message_delta (the last one counts). An
 * `error` event is thrown, as the translated streams do: the gateway answers it in its own error
 * event. The stream must end with message_stop, or it was cut short.
 */
export class AnthropicNativeStreamMapper {
  private readonly usage: AnthropicUsage = {};
  private stopped = false;

  map(event: { event?: string; data: string }): NativeStreamPart[] {
    let parsed: any;
    try {
      parsed = JSON.parse(event.data);
    } catch {
      throw new UpstreamError(
        'invalid_response',
        `stream event is not JSON: ${event.data.slice(0, 200)}`,
      );
    }
    const name = event.event ?? (typeof parsed?.type === 'string' ? parsed.type : 'message');
    const part: NativePart = {
      type: 'native',
      event: name,
      data: event.data,
      outputChars: 0,
    };
    switch (name) {
      case 'error':
        throw anthropicErrorFromEvent(parsed);
      case 'message_start':
        this.merge(parsed?.message?.usage);
        return [part];
      case 'content_block_delta':
        part.outputChars = deltaChars(parsed?.delta);
        return [part];
      case 'message_delta':
        this.merge(parsed?.usage);
        return [part, { type: 'usage', usage: mapAnthropicUsage(this.usage) }];
      case 'message_stop':
        this.stopped = true;
        return [part];
      default:
        return [part];
    }
  }

  /** True once message_stop was seen. */
  get complete(): boolean {
    return this.stopped;
  }

  private merge(usage: unknown): void {
    if (!usage || typeof usage !== 'object') return;
    for (const [field, value] of Object.entries(usage))
      if (typeof value === 'number') (this.usage as Record<string, number>)[field] = value;
  }
}

function deltaChars(delta: any): number {
  if (typeof delta?.text === 'string') return delta.text.length;
  if (typeof delta?.partial_json === 'string') return delta.partial_json.length;
  if (typeof delta?.thinking === 'string') return delta.thinking.length;
  return 0;
}
