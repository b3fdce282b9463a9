import { Readable } from 'node:stream';
import { readUpstreamSse, UpstreamSseEvent } from './upstream-sse.reader';
import { UpstreamError } from '../common/errors/upstream.error';

function body(pieces: string[]): Readable & { dump?: () => Promise<void> } {
  return Readable.from(pieces.map((piece) => Buffer.from(piece)));
}

async function collect(iterable: AsyncIterable<UpstreamSseEvent>): Promise<UpstreamSseEvent[]> {
  const events: UpstreamSseEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe('readUpstreamSse', () => {
  const signal = new AbortController().signal;

  it('reassembles events split inside field names, CRLF pairs and multi-byte characters', async () => {
    const bytes = Buffer.from(
      'event: message_start\r\ndata: {"t":"é✓"}\r\n\r\n: keep-alive\n\ndata: [DONE]\n\n',
    );
    // One byte per read: every field name, CRLF pair and UTF-8 sequence arrives split.
    const stream = Readable.from([...bytes].map((byte) => Buffer.from([byte])));
    expect(await collect(readUpstreamSse(stream, signal, { maxEventBytes: 1024 }))).toEqual([
      { event: 'message_start', data: '{"t":"é✓"}' },
      { data: '[DONE]' },
    ]);
  });

  it('stops after the final event and drains the rest of the body', async () => {
    const stream = body(['data: a\n\ndata: [DONE]\n\ndata: ignored\n\n']);
    const dump = jest.fn(async () => undefined);
    stream.dump = dump;
    const events = await collect(
      readUpstreamSse(stream, signal, {
        maxEventBytes: 1024,
        isFinal: (event) => event.data === '[DONE]',
      }),
    );
    expect(events.map((event) => event.data)).toEqual(['a', '[DONE]']);
    expect(dump).toHaveBeenCalled();
  });

  it('cuts off one event larger than the bound, comments since the last event included', async () => {
    const stream = body(['data: ok\n\n', ': '.padEnd(600, 'x'), '\n', 'data: '.padEnd(600, 'y')]);
    const events: string[] = [];
    const failure = await (async () => {
      for await (const event of readUpstreamSse(stream, signal, { maxEventBytes: 1000 }))
        events.push(event.data);
    })().catch((error: unknown) => error);
    expect(events).toEqual(['ok']);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ kind: 'invalid_response' });
    expect(stream.destroyed).toBe(true);
  });

  it('destroys the body when the consumer leaves early', async () => {
    const stream = body(['data: 1\n\n', 'data: 2\n\n']);
    for await (const event of readUpstreamSse(stream, signal, { maxEventBytes: 1024 })) {
      expect(event.data).toBe('1');
      break;
    }
    expect(stream.destroyed).toBe(true);
  });
});
