import { Logger } from '@nestjs/common';
import { manualClientConnection } from '../common/http/client-connection.fixture';
import { estimateTokens } from '../common/tokens/token-estimate';
import { estimatePromptTokens } from '../limits/token-reservation';
import { MetricsService } from '../metrics/metrics.service';
import {
  A_REQUEST as request,
  aPipelineContext as context,
  HELLO_WORLD as helloWorld,
  oneEach,
  pipelineFixture,
  readStream as drainStream,
  streamingAdapter as streaming,
} from './pipeline.fixture';
import { RequestDeadlines } from './request-deadlines';

describe('Pipeline.stream', () => {
  it('closes the upstream and records the outcome even if the stream is returned before its first read', async () => {
    const { adapter, upstream } = streaming(oneEach(helloWorld));
    const fixture = await pipelineFixture({ adapters: [adapter] });
    const stream = await fixture.pipeline.stream(request, context());

    // The client left before the SSE writer pulled anything.
    await stream.return!(undefined as never);

    expect(upstream.closed).toBe(true);
    expect(fixture.outcomes).toMatchObject([{ status: 'aborted', httpStatus: 499, stream: true }]);
  });

  it.each(['firstTokenAfter', 'streamOpened'] as const)(
    'closes the upstream, settles and records the failure when metrics.%s throws once the upstream is open',
    async (method) => {
      const { adapter, upstream } = streaming(oneEach([helloWorld[1]]));
      const fixture = await pipelineFixture({ adapters: [adapter] });
      jest.spyOn(fixture.get(MetricsService), method).mockImplementation(() => {
        throw new Error('metrics broke');
      });

      await expect(fixture.pipeline.stream(request, context())).rejects.toThrow('metrics broke');

      expect(upstream.closed).toBe(true);
      expect(fixture.settlements).toHaveLength(1);
      expect(fixture.outcomes).toMatchObject([
        { status: 'failed', httpStatus: 500, errorCode: 'internal_error' },
      ]);
    },
  );

  it('hands out the first batch it read to start the stream, and ends with the usage reported', async () => {
    const { adapter } = streaming([
      ...oneEach(helloWorld),
      [{ type: 'usage', usage: { promptTokens: 3, completionTokens: 2 } }],
    ]);
    const fixture = await pipelineFixture({ adapters: [adapter] });
    const { batches, end } = await drainStream(await fixture.pipeline.stream(request, context()));

    expect(batches).toEqual(oneEach(helloWorld));
    expect(end).toMatchObject({
      usage: { promptTokens: 3, completionTokens: 2 },
      deployment: { name: 'alpha-k3/0' },
    });
    expect(fixture.outcomes).toMatchObject([
      { status: 'completed', httpStatus: 200, usage: { promptTokens: 3, completionTokens: 2 } },
    ]);
  });

  it('hands the events of one upstream batch on together, in order, usage parts left out', async () => {
    const { adapter } = streaming([
      [
        { type: 'delta', content: 'Hel' },
        { type: 'delta', content: 'lo' },
        { type: 'usage', usage: { promptTokens: 3, completionTokens: 2 } },
      ],
      [{ type: 'usage', usage: { promptTokens: 3, completionTokens: 2 } }],
      [{ type: 'delta', finishReason: 'stop' }],
    ]);
    const fixture = await pipelineFixture({ adapters: [adapter] });
    const { batches } = await drainStream(await fixture.pipeline.stream(request, context()));

    expect(batches).toEqual([
      [
        { type: 'delta', content: 'Hel' },
        { type: 'delta', content: 'lo' },
      ],
      [{ type: 'delta', finishReason: 'stop' }],
    ]);
  });

  it('estimates usage from the prompt and the streamed text, tool calls included, when a stream is cut short', async () => {
    const { adapter } = streaming(
      oneEach([
        {
          type: 'delta',
          toolCalls: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'lookup', arguments: '{"q":' },
            },
          ],
        },
        {
          type: 'delta',
          toolCalls: [{ index: 0, function: { arguments: '"weather in Paris"}' } }],
        },
        { type: 'delta', finishReason: 'tool_calls' },
      ]),
    );
    const fixture = await pipelineFixture({ adapters: [adapter] });
    const stream = await fixture.pipeline.stream(request, context());
    await stream.next();
    await stream.next();
    await stream.return!(undefined as never);

    expect(fixture.outcomes).toMatchObject([
      {
        status: 'aborted',
        usage: {
          // The prompt's upper bound (docs/keys-and-limits.md), as its hold had it.
          promptTokens: estimatePromptTokens(request.messages),
          completionTokens: estimateTokens('lookup{"q":"weather in Paris"}'),
        },
      },
    ]);
  });

  it('records a failure after the first batch as failed with the 200 the client got', async () => {
    async function* failing() {
      yield [helloWorld[0]];
      throw new Error('connection reset');
    }
    const { adapter } = streaming([], { stream: () => Promise.resolve(failing()) });
    const fixture = await pipelineFixture({ adapters: [adapter] });
    const stream = await fixture.pipeline.stream(request, context());
    await stream.next();
    await expect(stream.next()).rejects.toThrow('connection reset');

    expect(fixture.outcomes).toMatchObject([
      { status: 'failed', httpStatus: 200, errorCode: 'internal_error' },
    ]);
  });

  it('disarms its deadlines when the upstream ends and when the client leaves', async () => {
    const dispose = jest.spyOn(RequestDeadlines.prototype, 'dispose');
    try {
      const finished = await pipelineFixture({
        adapters: [streaming(oneEach(helloWorld)).adapter],
      });
      await drainStream(await finished.pipeline.stream(request, context()));
      expect(dispose).toHaveBeenCalled();

      dispose.mockClear();
      const { adapter, upstream } = streaming(oneEach(helloWorld));
      const left = await pipelineFixture({ adapters: [adapter] });
      const client = manualClientConnection();
      const stream = await left.pipeline.stream(request, context(client));
      await stream.next();
      expect(dispose).not.toHaveBeenCalled();
      expect(client.listening).toBeGreaterThan(0);
      await stream.return!(undefined as never);
      expect(dispose).toHaveBeenCalled();
      expect(client.listening).toBe(0);
      expect(upstream.closed).toBe(true);
    } finally {
      dispose.mockRestore();
    }
  });
});

describe('Pipeline.complete', () => {
  it("answers the deployment's result with its usage, and sets the cost header of a priced deployment", async () => {
    const result = {
      content: 'Hello',
      finishReason: 'stop' as const,
      usage: { promptTokens: 1_000_000, completionTokens: 0 },
    };
    const fixture = await pipelineFixture({
      adapters: [{ ...streaming([]).adapter, complete: () => Promise.resolve(result) }],
      models: { 'alpha-k3': [{ provider: 'mock', price: { input: '2', output: '4' } }] },
    });
    const headers: Record<string, string> = {};
    const answer = await fixture.pipeline.complete(request, {
      ...context(),
      setHeaders: (set) => Object.assign(headers, set),
    });

    expect(answer).toMatchObject({ type: 'chat', result, usage: result.usage });
    expect(headers).toMatchObject({
      'x-gateway-cost-usd': '2',
      'x-gateway-deployment': 'alpha-k3/0',
      'x-gateway-attempts': '1',
    });
    expect(fixture.outcomes).toMatchObject([{ status: 'completed', stream: false }]);
    expect(fixture.settlements).toEqual([{ usage: result.usage, cost: 2_000_000_000_000n }]);
  });
});

describe('Pipeline debug line', () => {
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['debug', 1],
    ['verbose', 1],
    ['log', 0],
    ['warn', 0],
  ])('is written once per request at LOG_LEVEL=%s: %i', async (level, lines) => {
    const debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    const fixture = await pipelineFixture({
      adapters: [streaming(oneEach([helloWorld[1]])).adapter],
      env: { LOG_LEVEL: level },
    });
    await drainStream(await fixture.pipeline.stream(request, context()));
    expect(debug).toHaveBeenCalledTimes(lines);
    if (lines)
      expect(debug.mock.calls[0][0]).toMatch(/^req_1 key=.* model=alpha-k3 .* completed 200/);
  });
});
