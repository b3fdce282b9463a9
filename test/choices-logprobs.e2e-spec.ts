import OpenAI from 'openai';
import type { ServerResponse } from 'node:http';
import { FakeOpenAiUpstream, RecordedRequest } from './support/upstreams/openai-upstream';
import { startProviderFakes, type ProviderFakes } from './support/upstreams/provider-fakes';
import { startTestApp, TestApp } from './support/test-app';

// `n`, `logprobs` and `top_logprobs`: passed to OpenAI-compatible deployments with every choice and
// its logprobs relayed, JSON and stream; refused with a 400 by providers that cannot honour them.

const tokenLogprobs = (token: string) => ({
  content: [
    {
      token,
      logprob: -0.25,
      bytes: [...Buffer.from(token)],
      top_logprobs: [{ token, logprob: -0.25, bytes: [...Buffer.from(token)] }],
    },
  ],
  refusal: null,
});

/** Two choices with logprobs, as OpenAI answers `n: 2, logprobs: true, top_logprobs: 1`. */
function twoChoices(_request: RecordedRequest, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      id: 'chatcmpl-x',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-upstream-1',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Yes' },
          logprobs: tokenLogprobs('Yes'),
          finish_reason: 'stop',
        },
        {
          index: 1,
          message: { role: 'assistant', content: 'No' },
          logprobs: tokenLogprobs('No'),
          finish_reason: 'length',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    }),
  );
}

/** The same as a stream: choices interleaved, each chunk one choice, as OpenAI sends them. */
function twoChoiceStream(_request: RecordedRequest, response: ServerResponse): void {
  const base = {
    id: 'chatcmpl-s',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-upstream-1',
  };
  const frames = [
    {
      ...base,
      choices: [
        {
          index: 0,
          delta: { role: 'assistant', content: '' },
          logprobs: null,
          finish_reason: null,
        },
      ],
    },
    {
      ...base,
      choices: [
        {
          index: 1,
          delta: { role: 'assistant', content: '' },
          logprobs: null,
          finish_reason: null,
        },
      ],
    },
    {
      ...base,
      choices: [
        {
          index: 0,
          delta: { content: 'Yes' },
          logprobs: tokenLogprobs('Yes'),
          finish_reason: null,
        },
      ],
    },
    {
      ...base,
      choices: [
        { index: 1, delta: { content: 'No' }, logprobs: tokenLogprobs('No'), finish_reason: null },
      ],
    },
    { ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] },
    { ...base, choices: [{ index: 1, delta: {}, logprobs: null, finish_reason: 'length' }] },
    { ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } },
  ];
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.end(
    frames.map((frame) => `data: ${JSON.stringify(frame)}\n\n`).join('') + 'data: [DONE]\n\n',
  );
}

describe('n, logprobs and top_logprobs', () => {
  let fakes: ProviderFakes;
  let openai: FakeOpenAiUpstream;
  let gateway: TestApp;
  let client: OpenAI;

  beforeAll(async () => {
    fakes = await startProviderFakes();
    openai = fakes.openai;
    gateway = await startTestApp({
      models: {
        'alpha-k3': [openai.deployment('gpt-upstream-1')],
        'beta-v4-pro-0813': [fakes.anthropic.deployment('claude-sonnet-4-5')],
        'beta-v4-flash-0731': [fakes.gemini.deployment('gemini-2.5-flash')],
      },
    });
    client = new OpenAI({
      apiKey: await gateway.createKey(),
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
    });
  });

  afterAll(async () => {
    await gateway.close();
    await fakes.close();
  });

  it('passes them to an openai deployment and relays every choice with its logprobs (JSON)', async () => {
    openai.next(twoChoices);
    const result = await client.chat.completions.create({
      model: 'alpha-k3',
      messages: [{ role: 'user', content: 'Yes or no?' }],
      n: 2,
      logprobs: true,
      top_logprobs: 1,
    });
    expect(openai.lastRequest.body).toMatchObject({ n: 2, logprobs: true, top_logprobs: 1 });
    expect(result.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Yes' },
        logprobs: tokenLogprobs('Yes'),
        finish_reason: 'stop',
      },
      {
        index: 1,
        message: { role: 'assistant', content: 'No' },
        logprobs: tokenLogprobs('No'),
        finish_reason: 'length',
      },
    ]);
    expect(result.usage?.completion_tokens).toBe(2);
  });

  it('relays every choice with its logprobs in a stream', async () => {
    openai.next(twoChoiceStream);
    const stream = await client.chat.completions.create({
      model: 'alpha-k3',
      messages: [{ role: 'user', content: 'Yes or no?' }],
      n: 2,
      logprobs: true,
      top_logprobs: 1,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(openai.lastRequest.body).toMatchObject({
      n: 2,
      logprobs: true,
      top_logprobs: 1,
      stream: true,
    });
    const byChoice = (index: number) =>
      chunks.flatMap((chunk) => chunk.choices.filter((choice) => choice.index === index));
    for (const [index, text, finish] of [
      [0, 'Yes', 'stop'],
      [1, 'No', 'length'],
    ] as const) {
      const choices = byChoice(index);
      expect(choices[0].delta.role).toBe('assistant');
      expect(choices.filter((choice) => choice.delta.role).length).toBe(1);
      expect(choices.map((choice) => choice.delta.content ?? '').join('')).toBe(text);
      expect(choices.find((choice) => choice.logprobs)?.logprobs).toEqual(tokenLogprobs(text));
      expect(choices[choices.length - 1].finish_reason).toBe(finish);
    }
    expect(chunks[chunks.length - 1].usage).toMatchObject({ completion_tokens: 2 });
  });

  it.each([
    ['beta-v4-pro-0813', 'anthropic', { n: 2 }, 'n'],
    ['beta-v4-pro-0813', 'anthropic', { logprobs: true }, 'logprobs'],
    ['beta-v4-pro-0813', 'anthropic', { top_logprobs: 2 }, 'top_logprobs'],
    ['beta-v4-flash-0731', 'gemini', { n: 3 }, 'n'],
    ['beta-v4-flash-0731', 'gemini', { logprobs: true, stream: true }, 'logprobs'],
  ])('%s (%s) answers 400 to %j, naming the field', async (model, provider, extra, param) => {
    const upstream = provider === 'anthropic' ? fakes.anthropic : fakes.gemini;
    const before = upstream.requests.length;
    const error = await client.chat.completions
      .create({
        model,
        messages: [{ role: 'user', content: 'Hi' }],
        ...(extra as object),
      } as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      code: 'invalid_parameter',
      param,
    });
    expect((error as Error).message).toContain(provider);
    expect(upstream.requests.length).toBe(before);
  });

  it('still serves n: 1 and logprobs: false on anthropic', async () => {
    const result = await client.chat.completions.create({
      model: 'beta-v4-pro-0813',
      messages: [{ role: 'user', content: 'Hi' }],
      n: 1,
      logprobs: false,
    });
    expect(result.choices).toHaveLength(1);
  });
});
