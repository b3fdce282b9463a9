import { Readable } from 'node:stream';
import { readUpstreamSse, SseEventMapper, UpstreamSseEvent } from './upstream-sse.reader';
import { UpstreamError } from '../common/errors/upstream.error';

type Body = Readable & { dump?: () => Promise<void> };

/** A body that hands out one piece per read. */
function body(pieces: string[]): Body {
  return Readable.from(pieces.map((piece) => Buffer.from(piece)));
}

/** Yields the events themselves; `final` marks the end-of-stream event. */
function asEvents(final?: (event: UpstreamSseEvent) => boolean): SseEventMapper<UpstreamSseEvent> {
  return { map: (event) => [event], ...(final ? { isFinal: final } : {}) };
}

const signal = new AbortController().signal;

function read<T>(stream: Body, mapper: SseEventMapper<T>, maxEventBytes = 1024) {
  return readUpstreamSse(stream, signal, { maxEventBytes }, mapper);
}

/** Every batch, and what failed after them if anything did. */
async function batchesOf<T>(batches: AsyncIterable<readonly T[]>) {
  const all: (readonly T[])[] = [];
  const failure = await (async () => {
    for await (const batch of batches) all.push(batch);
  })().catch((error: unknown) => error);
  return { batches: all, items: all.flat(), failure };
}

describe('readUpstreamSse', () => {
  it('reassembles events split inside field names, CRLF pairs and multi-byte characters', async () => {
    const bytes = Buffer.from(
      'event: message_start\r\ndata: {"t":"é✓"}\r\n\r\n: keep-alive\n\ndata: [DONE]\n\n',
    );
    // One byte per read: every field name, CRLF pair and UTF-8 sequence arrives split.
    const stream = Readable.from([...bytes].map((byte) => Buffer.from([byte])));
    const { items, failure } = await batchesOf(read(stream, asEvents()));
    expect(failure).toBeUndefined();
    expect(items).toEqual([{ event: 'message_start', data: '{"t":"é✓"}' }, { data: '[DONE]' }]);
  });

  it('drops a byte-order mark opening the stream, also one split across reads', async () => {
    const bytes = Buffer.from('\uFEFFdata: a\n\ndata: \uFEFFb\n\n');
    const stream = Readable.from([...bytes].map((byte) => Buffer.from([byte])));
    const { items } = await batchesOf(read(stream, asEvents()));
    // Only the opening one: a mark inside an event's data is the provider's text.
    expect(items.map((event) => event.data)).toEqual(['a', '\uFEFFb']);
  });

  it('keeps a four-byte character split across reads whole', async () => {
    const bytes = Buffer.from('data: {"t":"😀"}\n\n');
    const stream = Readable.from([...bytes].map((byte) => Buffer.from([byte])));
    const { items } = await batchesOf(read(stream, asEvents()));
    expect(items.map((event) => event.data)).toEqual(['{"t":"😀"}']);
  });

  it('yields what the events of one read carried as one batch, never an empty one', async () => {
    const stream = body(['data: a\n\ndata: b\n\ndata: c', '\n\n', ': ping\n\n', 'data: d\n\n']);
    const { batches } = await batchesOf(read(stream, asEvents()));
    expect(batches.map((batch) => batch.map((event) => event.data))).toEqual([
      ['a', 'b'],
      ['c'],
      ['d'],
    ]);
  });

  it('stops after the final event and drains the rest of the body', async () => {
    const stream = body(['data: a\n\ndata: [DONE]\n\ndata: ignored\n\n']);
    const dump = jest.fn(async () => undefined);
    stream.dump = dump;
    const { items } = await batchesOf(
      read(
        stream,
        asEvents((event) => event.data === '[DONE]'),
      ),
    );
    expect(items.map((event) => event.data)).toEqual(['a', '[DONE]']);
    expect(dump).toHaveBeenCalled();
  });

  it('cuts off one event larger than the bound, comments since the last event included', async () => {
    const stream = body(['data: ok\n\n', ': '.padEnd(600, 'x'), '\n', 'data: '.padEnd(600, 'y')]);
    const { items, failure } = await batchesOf(read(stream, asEvents(), 1000));
    expect(items.map((event) => event.data)).toEqual(['ok']);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ kind: 'invalid_response' });
    expect(stream.destroyed).toBe(true);
  });

  it('destroys the body when the consumer leaves early', async () => {
    const stream = body(['data: 1\n\n', 'data: 2\n\n']);
    for await (const [event] of read(stream, asEvents())) {
      expect(event.data).toBe('1');
      break;
    }
    expect(stream.destroyed).toBe(true);
  });

  it('yields what the mapper makes of each event, then what its end() adds', async () => {
    const stream = body(['data: a\n\ndata: b\n', '\ndata: c\n\n']);
    const mapper: SseEventMapper<string> = {
      map: (event) => (event.data === 'b' ? [] : [event.data, event.data.toUpperCase()]),
      end: () => ['end'],
    };
    const { items } = await batchesOf(read(stream, mapper));
    expect(items).toEqual(['a', 'A', 'c', 'C', 'end']);
  });

  it("passes the mapper's errors through as they are, after what came before them in the same read", async () => {
    const stream = body(['data: ok\n\ndata: bad\n\ndata: never\n\n']);
    const refusal = new UpstreamError('unavailable', 'error event in stream');
    const mapper: SseEventMapper<string> = {
      map: (event) => {
        if (event.data === 'bad') throw refusal;
        return [event.data];
      },
    };
    const { items, failure } = await batchesOf(read(stream, mapper));
    expect(items).toEqual(['ok']);
    expect(failure).toBe(refusal);
    expect(stream.destroyed).toBe(true);
  });

  it('throws what end() throws when the body ends early (a stream cut short)', async () => {
    const cut = new UpstreamError('invalid_response', 'stream ended before its end marker');
    const mapper: SseEventMapper<string> = {
      map: (event) => [event.data],
      end: () => {
        throw cut;
      },
    };
    const { items, failure } = await batchesOf(read(body(['data: a\n\n']), mapper));
    expect(items).toEqual(['a']);
    expect(failure).toBe(cut);
  });

  it('turns a transport failure of the body into an UpstreamError', async () => {
    const stream = new Readable({ read() {} });
    stream.push('data: a\n\n');
    const items: string[] = [];
    const failure = await (async () => {
      for await (const [event] of read(stream, asEvents())) {
        items.push(event.data);
        stream.destroy(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
      }
    })().catch((error: unknown) => error);
    expect(items).toEqual(['a']);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ kind: 'unavailable' });
  });

  it('reads only as fast as the consumer asks (backpressure)', async () => {
    let reads = 0;
    const stream = new Readable({
      highWaterMark: 16,
      read() {
        reads++;
        this.push(`data: ${reads}\n\n`);
      },
    });
    const iterator = read(stream, asEvents());
    expect((await iterator.next()).value).toEqual([{ data: '1' }]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The body's own buffer fills to its highWaterMark, and no further.
    expect(reads).toBeLessThanOrEqual(3);
    await iterator.return(undefined);
    expect(stream.destroyed).toBe(true);
  });

  it('absorbs the error a body emits when destroyed before its end, as undici does', async () => {
    const stream = new Readable({
      read() {},
      destroy(error, callback) {
        callback(error ?? Object.assign(new Error('Request aborted'), { code: 'UND_ERR_ABORTED' }));
      },
    });
    stream.push('data: 1\n\n');
    for await (const [event] of read(stream, asEvents())) {
      expect(event.data).toBe('1');
      break;
    }
    // An 'error' nobody listens to would end the process here.
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.destroyed).toBe(true);
  });
});
