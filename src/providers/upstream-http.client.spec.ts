import { loadAppConfig } from '../config/app-config';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { UpstreamHttpClient } from './upstream-http.client';

// The client sends through its agent with each URL split once (origin, path and query); these
// tests check with a real server what arrives, for the URL shapes the providers build.

interface Seen {
  method?: string;
  url?: string;
  host?: string;
  authorization?: string;
  body: string;
}

describe.each(['post', 'postJson'] as const)('UpstreamHttpClient.%s', (method) => {
  let server: Server;
  let origin: string;
  let host: string;
  let seen: Seen[];
  let client: UpstreamHttpClient;
  const deployment = { name: 'spec', maxConcurrency: null } as unknown as DeploymentConfig;

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        seen.push({
          method: request.method,
          url: request.url,
          host: request.headers.host,
          authorization: request.headers.authorization,
          body,
        });
        response.setHeader('content-type', 'application/json');
        response.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    origin = `http://${host}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen = [];
    client = new UpstreamHttpClient(loadAppConfig({}));
  });
  afterEach(async () => {
    await client.onModuleDestroy();
  });

  const send = async (url: string, body = '{"n":1}') => {
    const request = {
      url,
      headers: { authorization: 'Bearer sk-spec', 'content-type': 'application/json' },
      body,
      timeoutMs: 5_000,
      signal: new AbortController().signal,
      deployment,
    };
    if (method === 'postJson') return client.postJson(request);
    return (await client.post(request)).body.json();
  };

  it('sends the path under a base path, the query string and the body, without the fragment', async () => {
    await send(`${origin}/openai/v1/chat/completions`);
    await send(`${origin}/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=k`, '{"n":2}');
    expect(await send(`${origin}/v1/messages#ignored`)).toEqual({ ok: true });
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/openai/v1/chat/completions',
        host,
        authorization: 'Bearer sk-spec',
        body: '{"n":1}',
      },
      {
        method: 'POST',
        url: '/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=k',
        host,
        authorization: 'Bearer sk-spec',
        body: '{"n":2}',
      },
      expect.objectContaining({ url: '/v1/messages' }),
    ]);
  });

  it('sends every request to its own URL while it keeps at most 1,000 of them split', async () => {
    const urls = Array.from({ length: 1_001 }, (_, i) => `${origin}/v1/chat/completions?i=${i}`);
    for (const url of urls) await send(url);
    expect(seen.map((request) => request.url)).toEqual(urls.map((url) => url.slice(origin.length)));
    // The cache was cleared on the 1,001st URL, which is the only one it holds now.
    expect(client['targets'].size).toBe(1);
    await send(urls[0]);
    expect(seen.at(-1)?.url).toBe('/v1/chat/completions?i=0');
  });
});
