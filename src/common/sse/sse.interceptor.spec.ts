import { CallHandler, ExecutionContext, StreamableFile } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { once } from 'node:events';
import { lastValueFrom, of } from 'rxjs';
import { replayFirst } from '../async/replay-first';
import { SseInterceptor } from './sse.interceptor';

function fakeResponse() {
  const headers = new Map<string, unknown>();
  return {
    headers,
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    // What the interceptor batches writes with (a writable's cork/uncork); counted, so a test
    // could tell, but nothing is written to this fake.
    corks: 0,
    cork() {
      this.corks++;
    },
    uncork() {
      this.corks--;
    },
  };
}

async function intercept(result: unknown, response = fakeResponse()): Promise<unknown> {
  const interceptor = new SseInterceptor(new ConfigService({ SSE_HEARTBEAT_MS: 0 }));
  const context = {
    switchToHttp: () => ({ getResponse: () => response }),
  } as unknown as ExecutionContext;
  const next: CallHandler = { handle: () => of(result) };
  return lastValueFrom(interceptor.intercept(context, next));
}

/**
 * A started generator of one-chunk batches (as the completions service hands out) that records
 * whether it was closed.
 */
async function startedSource(values: unknown[]) {
  const state = { closed: false };
  async function* generate() {
    try {
      for (const value of values) yield [value];
    } finally {
      state.closed = true;
    }
  }
  const generator = generate();
  return { iterator: replayFirst(await generator.next(), generator), state };
}

describe('SseInterceptor', () => {
  it('passes a plain result through untouched', async () => {
    const body = { id: 'chatcmpl_x' };
    expect(await intercept(body)).toBe(body);
  });

  it('writes an async iterable as an event stream with SSE headers', async () => {
    const response = fakeResponse();
    const { iterator } = await startedSource([{ n: 1 }]);
    const file = await intercept(iterator, response);

    expect(file).toBeInstanceOf(StreamableFile);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
  });

  it('emits whole frames, each valid UTF-8 on its own', async () => {
    const { iterator } = await startedSource([{ text: '👋' }, { text: 'é—🎉' }]);
    const stream = ((await intercept(iterator)) as StreamableFile).getStream();
    const strict = new TextDecoder('utf-8', { fatal: true });
    const flushed: string[] = [];
    for await (const chunk of stream) flushed.push(strict.decode(chunk as Buffer));
    expect(flushed).toEqual([
      'data: {"text":"👋"}\n\n',
      'data: {"text":"é—🎉"}\n\n',
      'data: [DONE]\n\n',
    ]);
  });

  it('closes the source even when the response stream is destroyed before its first read', async () => {
    const { iterator, state } = await startedSource([{ n: 1 }, { n: 2 }]);
    const stream = ((await intercept(iterator)) as StreamableFile).getStream();

    stream.destroy();
    await once(stream, 'close');
    await new Promise((resolve) => setImmediate(resolve));

    expect(state.closed).toBe(true);
  });

  it("emits 'close' only after the source has finished its cleanup (the drain waits for it)", async () => {
    const state = { recorded: false };
    async function* generate() {
      try {
        yield [{ n: 1 }];
        yield [{ n: 2 }];
      } finally {
        // Settling tokens and recording usage take a moment.
        await new Promise((resolve) => setTimeout(resolve, 30));
        state.recorded = true;
      }
    }
    const generator = generate();
    const stream = (
      (await intercept(replayFirst(await generator.next(), generator))) as StreamableFile
    ).getStream();
    stream.read();
    stream.destroy();
    await once(stream, 'close');
    expect(state.recorded).toBe(true);
  });
});
