import { Agent, IncomingHttpHeaders, IncomingMessage, request } from 'node:http';

/**
 * A raw HTTP client for the streaming endpoint that keeps every byte as it arrived, so tests can
 * check exact framing, pause reading (backpressure) or drop the connection mid-stream. supertest
 * buffers the whole body and cannot do any of that.
 */
export interface RawStream {
  status: number;
  headers: IncomingHttpHeaders;
  response: IncomingMessage;
  /** Body bytes received so far, in arrival order. */
  chunks: Buffer[];
  bytes(): Buffer;
  /** Resolves when the server ends the body (rejects if the connection breaks). */
  ended: Promise<void>;
  /** Resolves once the received body contains `text`. */
  waitFor(text: string): Promise<void>;
  /** Drops the connection, as a client that goes away does. */
  disconnect(): void;
}

export function postStream(
  baseUrl: string,
  key: string,
  body: unknown,
  options: { read?: boolean; agent?: Agent } = {},
): Promise<RawStream> {
  const url = new URL('/v1/chat/completions', baseUrl);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: 'POST',
      agent: options.agent ?? false,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
      },
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      const waiters: Array<{ text: string; resolve: () => void }> = [];
      const bytes = () => Buffer.concat(chunks);
      const ended = new Promise<void>((resolveEnd, rejectEnd) => {
        response.on('end', resolveEnd);
        response.on('error', rejectEnd);
        response.on('aborted', () =>
          rejectEnd(new Error('connection closed before the body ended')),
        );
      });
      ended.catch(() => undefined);
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (waiters.length === 0) return;
        const text = bytes().toString('utf8');
        for (const waiter of waiters.filter((w) => text.includes(w.text))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      });
      if (options.read === false) response.pause();
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        response,
        chunks,
        bytes,
        ended,
        waitFor: (text) =>
          bytes().toString('utf8').includes(text)
            ? Promise.resolve()
            : new Promise((done) => waiters.push({ text, resolve: done })),
        disconnect: () => outgoing.destroy(),
      });
    });
    outgoing.end(payload);
  });
}

/** postStream, then the whole body as text once the server has ended it. */
export async function streamToEnd(
  baseUrl: string,
  key: string,
  body: unknown,
): Promise<{ stream: RawStream; text: string }> {
  const stream = await postStream(baseUrl, key, body);
  await stream.ended;
  return { stream, text: stream.bytes().toString('utf8') };
}

/** Splits an SSE body into its events (the text between blank lines), dropping the final empty rest. */
export function sseEvents(body: string): string[] {
  const events = body.split('\n\n');
  if (events[events.length - 1] === '') events.pop();
  return events;
}

/** The JSON payloads of the `data:` events, [DONE] excluded. */
export function dataPayloads(body: string): any[] {
  return sseEvents(body)
    .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]')
    .map((event) => JSON.parse(event.slice('data: '.length)));
}

/** The named events of a body (`event:` then `data: <json>` lines), as Responses streams send them. */
export function namedEvents(body: string): Array<{ event: string; data: any }> {
  return sseEvents(body)
    .filter((event) => event.startsWith('event: '))
    .map((event) => {
      const [name, data] = event.split('\n');
      return { event: name.slice('event: '.length), data: JSON.parse(data.slice('data: '.length)) };
    });
}
