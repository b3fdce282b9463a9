import { GatewayException } from '../../common/errors/gateway.exception';
import type { DeploymentConfig } from '../../config/gateway-config.types';
import { toCanonicalRequest } from './anthropic-messages.canonical';
import { parseMessagesRequest } from './dto/create-message.dto';

const deployment = (provider: DeploymentConfig['provider']) => ({ provider }) as DeploymentConfig;

const withUrlDocument = () =>
  parseMessagesRequest({
    model: 'claude-alias',
    max_tokens: 10,
    messages: [
      {
        role: 'user',
        content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }],
      },
    ],
    unknown_field: true,
  });

describe('toCanonicalRequest', () => {
  it('carries the client body and its Anthropic headers for pass-through, and the translation', () => {
    const body = withUrlDocument();
    const request = toCanonicalRequest(
      body,
      { 'anthropic-beta': 'a,b', 'anthropic-version': '2023-06-01', 'x-api-key': 'secret' },
      [deployment('anthropic')],
    );
    expect(request).toEqual({
      endpoint: 'messages',
      model: 'claude-alias',
      messages: [],
      parameters: { max_completion_tokens: 10 },
      native: {
        provider: 'anthropic',
        body,
        headers: { 'anthropic-beta': 'a,b', 'anthropic-version': '2023-06-01' },
      },
    });
    expect(request.native!.body).toBe(body);
  });

  it('refuses content without a chat form when a deployment would have to translate it', () => {
    let error: unknown;
    try {
      toCanonicalRequest(withUrlDocument(), {}, [deployment('anthropic'), deployment('openai')]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayException);
    expect((error as GatewayException).status).toBe(400);
    expect((error as GatewayException).message).toBe(
      'messages.0.content.0.source: a document by URL can only be sent to an Anthropic deployment, and model claude-alias has others',
    );
  });
});
