import 'reflect-metadata';
import type { ConfigService } from '@nestjs/config';
import type { HttpAdapterHost } from '@nestjs/core';
import { parseGatewayConfig } from '../config/gateway-config.loader';
import { GatewayConfigService } from '../config/gateway-config.service';
import { aVirtualKey } from '../keys/virtual-key.fixture';
import { estimateTokens } from '../common/tokens/token-estimate';
import type {
  ProviderAdapter,
  TokenUsage,
  UpstreamStreamPart,
} from '../providers/provider-adapter.interface';
import { ProviderRegistry } from '../providers/provider-registry.service';
import type { TokenLimitsService } from '../limits/token-limits.service';
import { MetricsService } from '../metrics/metrics.service';
import { RequestDrain } from '../usage/request-drain.service';
import type { UsageRecorder } from '../usage/usage-recorder.service';
import { AttemptDeadline } from './attempt-deadline';
import { CompletionsService } from './completions.service';
import { DeploymentHealthService } from './deployment-health.service';
import { DeploymentRouter } from './deployment-router.service';
import type { CreateChatCompletionDto } from './dto/create-chat-completion.dto';
import { manualClientConnection } from '../common/http/client-connection.fixture';

const key = aVirtualKey();

const dto = {
  model: 'alpha-k3',
  messages: [{ role: 'user', content: 'hi' }],
  stream: true,
} as CreateChatCompletionDto;

interface ServiceOptions {
  /** The upstream's reads; one part per read when not given. */
  batches?: UpstreamStreamPart[][];
  /** LOG_LEVEL; when not given, record() is stubbed out. */
  logLevel?: string;
  adapter?: Partial<ProviderAdapter>;
  metricsOf?: (config: GatewayConfigService) => MetricsService;
}

/**
 * A service whose only deployment streams `parts`, one per batch unless `batches` are given;
 * `upstream.closed` tells whether it was closed.
 */
function serviceStreaming(
  parts: UpstreamStreamPart[],
  {
    batches = parts.map((part) => [part]),
    logLevel,
    adapter: adapterOverrides = {},
    metricsOf,
  }: ServiceOptions = {},
) {
  const upstream = { closed: false };
  async function* answer() {
    try {
      yield* batches;
    } finally {
      upstream.closed = true;
    }
  }
  const adapter: ProviderAdapter = {
    provider: 'mock',
    complete: () => Promise.reject(new Error('not used')),
    stream: async () => answer(),
    ...adapterOverrides,
  };
  const config = new GatewayConfigService(
    parseGatewayConfig({ models: { 'alpha-k3': [{ provider: 'mock' }] } }, {}),
  );
  const usage = { record: jest.fn() } as unknown as UsageRecorder;
  // Limits are not what these tests are about: every reservation is granted and settles silently.
  const settleInBackground = jest.fn();
  const tokenLimits = {
    reserve: async () => ({}),
    settleInBackground,
  } as unknown as TokenLimitsService;
  const env = { get: (name: string) => (name === 'LOG_LEVEL' ? logLevel : undefined) };
  // No HTTP server: only the completions' own units of work are counted.
  const drain = new RequestDrain({ httpAdapter: undefined } as unknown as HttpAdapterHost, 5_000);
  const service = new CompletionsService(
    new DeploymentRouter(config, new ProviderRegistry([adapter]), new DeploymentHealthService()),
    usage,
    tokenLimits,
    drain,
    env as ConfigService,
    metricsOf?.(config),
  );
  // record() is where the outcome leaves the service (the log line and the usage row).
  const record = jest.spyOn(service as any, 'record');
  if (logLevel === undefined) record.mockImplementation(() => undefined);
  return { service, upstream, record, drain, settleInBackground };
}

const context = () => ({
  key,
  requestId: 'req_1',
  client: manualClientConnection(),
  setHeaders: () => undefined,
});

/** The one outcome recorded: record(progress, { deployment, status, httpStatus, usage, ... }). */
function outcome(record: jest.SpyInstance) {
  expect(record).toHaveBeenCalledTimes(1);
  const [, { status, httpStatus, usage }] = record.mock.calls[0] as [
    unknown,
    { status: string; httpStatus: number; usage: TokenUsage },
  ];
  return { status, httpStatus, usage };
}

describe('CompletionsService.stream', () => {
  it('closes the upstream and records the outcome even if the stream is returned before its first read', async () => {
    const { service, upstream, record } = serviceStreaming([
      { type: 'delta', content: 'Hello' },
      { type: 'delta', content: ' world', finishReason: 'stop' },
    ]);
    const chunks = await service.stream(dto, context());

    // The client left before the SSE writer pulled anything.
    await chunks[Symbol.asyncIterator]().return?.();

    expect(upstream.closed).toBe(true);
    expect(outcome(record)).toMatchObject({ status: 'aborted', httpStatus: 499 });
  });

  it.each(['firstTokenAfter', 'streamOpened'] as const)(
    'closes the upstream, settles and records the failure when metrics.%s throws once the upstream is open',
    async (method) => {
      const { service, upstream, record, settleInBackground } = serviceStreaming(
        [{ type: 'delta', content: 'Hello', finishReason: 'stop' }],
        {
          metricsOf: (config) => {
            const metrics = new MetricsService(config);
            jest.spyOn(metrics, method).mockImplementation(() => {
              throw new Error('metrics broke');
            });
            return metrics;
          },
        },
      );
      const recordFailure = jest
        .spyOn(service as any, 'recordFailure')
        .mockImplementation(() => undefined);

      await expect(service.stream(dto, context())).rejects.toThrow('metrics broke');

      expect(upstream.closed).toBe(true);
      expect(settleInBackground).toHaveBeenCalledTimes(1);
      expect(recordFailure).toHaveBeenCalledTimes(1);
      expect(record).not.toHaveBeenCalled();
    },
  );

  it('still hands out the first chunk it read to start the stream', async () => {
    const { service, record } = serviceStreaming([
      { type: 'delta', content: 'Hello' },
      { type: 'delta', content: ' world', finishReason: 'stop' },
      { type: 'usage', usage: { promptTokens: 3, completionTokens: 2 } },
    ]);
    const contents: Array<string | undefined> = [];
    for await (const batch of await service.stream(dto, context()))
      for (const chunk of batch) contents.push(chunk.choices[0]?.delta.content);

    expect(contents).toEqual(['Hello', ' world']);
    expect(outcome(record)).toMatchObject({
      status: 'completed',
      usage: { promptTokens: 3, completionTokens: 2 },
    });
  });

  it('counts streamed tool-call text when a stream is cut short', async () => {
    const { service, record } = serviceStreaming([
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
      { type: 'delta', toolCalls: [{ index: 0, function: { arguments: '"weather in Paris"}' } }] },
      { type: 'delta', finishReason: 'tool_calls' },
    ]);
    const iterator = (await service.stream(dto, context()))[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    await iterator.return?.();

    const { status, usage } = outcome(record);
    expect(status).toBe('aborted');
    expect(usage.completionTokens).toBe(estimateTokens('lookup{"q":"weather in Paris"}'));
  });

  it("disarms the attempt's deadlines when the upstream ends and when the client leaves", async () => {
    const dispose = jest.spyOn(AttemptDeadline.prototype, 'dispose');
    try {
      const parts: UpstreamStreamPart[] = [
        { type: 'delta', content: 'Hello' },
        { type: 'delta', content: ' world', finishReason: 'stop' },
      ];
      const finished = serviceStreaming(parts);
      for await (const batch of await finished.service.stream(dto, context()))
        expect(batch.length).toBeGreaterThan(0);
      expect(dispose).toHaveBeenCalled();

      dispose.mockClear();
      const left = serviceStreaming(parts);
      const iterator = (await left.service.stream(dto, context()))[Symbol.asyncIterator]();
      await iterator.next();
      expect(dispose).not.toHaveBeenCalled();
      await iterator.return?.();
      expect(dispose).toHaveBeenCalled();
      expect(left.upstream.closed).toBe(true);
    } finally {
      dispose.mockRestore();
    }
  });

  it('serialises chunks with the keys in the wire order, usage last when asked for', async () => {
    const { service } = serviceStreaming([
      { type: 'delta', content: 'Hi', finishReason: 'stop' },
      { type: 'usage', usage: { promptTokens: 3, completionTokens: 1 } },
    ]);
    const frames: string[] = [];
    const withUsage = {
      ...dto,
      stream_options: { include_usage: true },
    } as CreateChatCompletionDto;
    for await (const [chunk] of await service.stream(withUsage, context()))
      frames.push(JSON.stringify(chunk).replace(/"(id|created)":("[^"]*"|\d+)/g, '"$1":_'));
    expect(frames).toEqual([
      '{"id":_,"object":"chat.completion.chunk","created":_,"model":"alpha-k3","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":"stop","logprobs":null}]}',
      '{"id":_,"object":"chat.completion.chunk","created":_,"model":"alpha-k3","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}',
    ]);
  });

  it('hands out the chunks of one upstream batch together, in order, usage parts left out', async () => {
    const { service, record } = serviceStreaming([], {
      batches: [
        [
          { type: 'delta', content: 'Hel' },
          { type: 'delta', content: 'lo' },
          { type: 'usage', usage: { promptTokens: 3, completionTokens: 2 } },
        ],
        [{ type: 'usage', usage: { promptTokens: 3, completionTokens: 2 } }],
        [{ type: 'delta', finishReason: 'stop' }],
      ],
    });
    const batches: Array<Array<[string | undefined, string | undefined, string | null]>> = [];
    for await (const batch of await service.stream(dto, context()))
      batches.push(
        batch.map(({ choices: [choice] }) => [
          choice.delta.role,
          choice.delta.content,
          choice.finish_reason,
        ]),
      );
    expect(batches).toEqual([
      [
        ['assistant', 'Hel', null],
        [undefined, 'lo', null],
      ],
      [[undefined, undefined, 'stop']],
    ]);
    expect(outcome(record)).toMatchObject({ status: 'completed' });
  });
});

describe('CompletionsService and the request drain', () => {
  const parts: UpstreamStreamPart[] = [
    { type: 'delta', content: 'Hello' },
    { type: 'delta', content: ' world', finishReason: 'stop' },
  ];
  const answered = {
    content: 'Hello',
    finishReason: 'stop',
    usage: { promptTokens: 3, completionTokens: 1 },
  };

  /** A request context whose outcome, when recorded, notes how much work the drain still held. */
  const noting = (drain: RequestDrain, held: number[], client = manualClientConnection()) => ({
    ...context(),
    client,
    report: () => void held.push(drain.inFlight),
  });

  it('holds an answer until its outcome is recorded: answered, failed, or its client gone', async () => {
    let settle: { resolve: (answer: unknown) => void; reject: (error: Error) => void } | undefined;
    const complete = () => new Promise((resolve, reject) => (settle = { resolve, reject }));
    const { service, drain } = serviceStreaming(parts, {
      logLevel: 'log',
      adapter: { complete: complete as ProviderAdapter['complete'] },
    });
    const json = { ...dto, stream: false } as CreateChatCompletionDto;
    const held: number[] = [];
    const upstreamCalled = async () => {
      while (!settle) await new Promise((resolve) => setImmediate(resolve));
      const called = settle;
      settle = undefined;
      return called;
    };

    const answering = service.complete(json, noting(drain, held));
    const answer = await upstreamCalled();
    expect(drain.inFlight).toBe(1);
    answer.resolve(answered);
    await answering;
    expect(held).toEqual([1]);
    expect(drain.inFlight).toBe(0);

    const failing = service.complete(json, noting(drain, held));
    (await upstreamCalled()).reject(new Error('upstream gone'));
    await expect(failing).rejects.toThrow();
    expect(held).toEqual([1, 1]);
    expect(drain.inFlight).toBe(0);

    const client = manualClientConnection();
    const abandoned = service.complete(json, noting(drain, held, client));
    await upstreamCalled();
    client.leave();
    await expect(abandoned).rejects.toThrow();
    expect(held).toEqual([1, 1, 1]);
    expect(drain.inFlight).toBe(0);
  });

  it('holds a stream after it is handed out until its generator has recorded the outcome', async () => {
    const { service, drain } = serviceStreaming(parts, { logLevel: 'log' });
    const held: number[] = [];
    const finished = await service.stream(dto, noting(drain, held));
    expect(drain.inFlight).toBe(1);
    for await (const batch of finished) expect(batch.length).toBeGreaterThan(0);
    expect(held).toEqual([1]);
    expect(drain.inFlight).toBe(0);

    const left = (await service.stream(dto, noting(drain, held)))[Symbol.asyncIterator]();
    await left.next();
    expect(drain.inFlight).toBe(1);
    await left.return?.();
    expect(held).toEqual([1, 1]);
    expect(drain.inFlight).toBe(0);
  });

  it('lets go of a stream whose outcome could not be recorded', async () => {
    const { service, record, drain } = serviceStreaming(parts);
    record.mockImplementation(() => {
      throw new Error('recording failed');
    });
    const stream = (await service.stream(dto, context()))[Symbol.asyncIterator]();
    await stream.next();
    await expect(stream.return!()).rejects.toThrow('recording failed');
    expect(drain.inFlight).toBe(0);
  });

  it('lets go of a stream that fails before its first token, and of one refused before routing', async () => {
    const { service, drain } = serviceStreaming(parts, {
      adapter: { stream: () => Promise.reject(new Error('connection refused')) },
    });
    await expect(service.stream(dto, context())).rejects.toThrow();
    expect(drain.inFlight).toBe(0);

    await expect(service.stream({ ...dto, model: 'no-such-model' }, context())).rejects.toThrow();
    expect(drain.inFlight).toBe(0);
  });
});

describe('CompletionsService debug line', () => {
  it.each([
    ['debug', 1],
    ['verbose', 1],
    ['log', 0],
    ['warn', 0],
  ])('is written once per request at LOG_LEVEL=%s: %i', async (level, lines) => {
    const { service } = serviceStreaming([{ type: 'delta', content: 'Hi', finishReason: 'stop' }], {
      logLevel: level,
    });
    const debug = jest.spyOn((service as any).logger, 'debug').mockImplementation(() => undefined);
    for await (const batch of await service.stream(dto, context())) expect(batch).toHaveLength(1);
    expect(debug).toHaveBeenCalledTimes(lines);
    if (lines)
      expect(debug.mock.calls[0][0]).toMatch(/^req_1 key=.* model=alpha-k3 .* completed 200/);
  });
});
