import Anthropic from '@anthropic-ai/sdk';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import OpenAI from 'openai';
import request from 'supertest';
import { CliModule } from '../src/cli/cli.module';
import { spend } from '../src/cli/spend-commands';
import { parseDecimal } from '../src/common/money/decimal';
import { COST_DECIMALS, formatUsd } from '../src/common/money/price';
import { loadAppConfig } from '../src/config/app-config';
import { TeamsService } from '../src/teams/teams.service';
import { adminApi, ADMIN_KEY } from './support/admin';
import { chat } from './support/chat';
import { dashboardSignIn } from './support/dashboard';
import { expectEnvelope } from './support/envelope';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';
import { completion, FakeOpenAiUpstream } from './support/upstreams/openai-upstream';

// Spend by end user (docs/spend.md): the end user each format carries (`user`,
// `metadata.user_id`) or the x-gateway-end-user header, which wins, sent by the official clients;
// the report per end user from the end users' daily rollup, equal to the cost headers' sum.

const PRICE = { input: '1.25', output: '10' };
const run = `${process.pid}-${Date.now()}`;
const ALICE = `alice-${run}`;
const BOB = `bob@example.com-${run}`;
const CAROL = `carol-${run}`;
const DAVE = `dave-${run}`;

describe('spend by end user', () => {
  let upstream: FakeOpenAiUpstream;
  let gateway: TestApp;
  let cli: INestApplicationContext;
  let keyId: string;
  let teamId: string;
  let openai: OpenAI;
  let anthropic: Anthropic;
  /** Pico-dollars and requests per end user, from the answers' x-gateway-cost-usd. */
  const charged = new Map<string, { pico: bigint; requests: number }>();

  const charge = (user: string, header: string | null) => {
    expect(header).toMatch(/^\d+(\.\d+)?$/);
    const entry = charged.get(user) ?? { pico: 0n, requests: 0 };
    entry.pico += parseDecimal(header!, COST_DECIMALS)!;
    entry.requests++;
    charged.set(user, entry);
  };
  /** The next chat answer of the upstream, with its own token counts so that costs differ. */
  const answerWith = (promptTokens: number) =>
    upstream.next(completion('ok', { prompt_tokens: promptTokens, completion_tokens: 7 }));

  beforeAll(async () => {
    upstream = await FakeOpenAiUpstream.start();
    const priced = { provider: 'openai', base_url: upstream.url, api_key: 'sk-up', price: PRICE };
    gateway = await startTestApp({
      models: {
        priced: [{ ...priced, model: 'gpt-4o' }],
        embed: [{ provider: 'mock', type: 'embedding', price: { input: '0.02' } }],
      },
      env: { ADMIN_API_KEY: ADMIN_KEY, USAGE_FLUSH_INTERVAL_MS: '50' },
    });
    teamId = (await gateway.app.get(TeamsService).create({ name: `end-users-${run}` })).id;
    const key = await gateway.createKeyWithId({ teamId });
    keyId = key.id;
    openai = new OpenAI({ apiKey: key.secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: key.secret, baseURL: gateway.url, maxRetries: 0 });
    cli = await NestFactory.createApplicationContext(
      CliModule.forCommand(loadAppConfig(process.env), { allowUnmigrated: false }),
      { logger: false },
    );
  });

  afterAll(async () => {
    await cli?.close();
    await gateway?.close();
    await upstream?.close();
  });

  it('stores the end user of every format, the header over the body, and reports it per end user', async () => {
    answerWith(100);
    const first = await openai.chat.completions
      .create({ model: 'priced', messages: [{ role: 'user', content: 'hi' }], user: ALICE })
      .withResponse();
    charge(ALICE, first.response.headers.get('x-gateway-cost-usd'));
    answerWith(250);
    const second = await openai.responses
      .create({ model: 'priced', input: 'hello', user: ALICE, store: false })
      .withResponse();
    charge(ALICE, second.response.headers.get('x-gateway-cost-usd'));
    const embedded = await openai.embeddings
      .create({ model: 'embed', input: ['one text', 'another text'], user: BOB })
      .withResponse();
    charge(BOB, embedded.response.headers.get('x-gateway-cost-usd'));
    answerWith(40);
    const message = await anthropic.messages
      .create({
        model: 'priced',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
        metadata: { user_id: CAROL },
      })
      .withResponse();
    charge(CAROL, message.response.headers.get('x-gateway-cost-usd'));
    // The header wins over the body, on every format.
    answerWith(70);
    const overChat = await openai.chat.completions
      .create(
        { model: 'priced', messages: [{ role: 'user', content: 'hi' }], user: ALICE },
        { headers: { 'x-gateway-end-user': DAVE } },
      )
      .withResponse();
    charge(DAVE, overChat.response.headers.get('x-gateway-cost-usd'));
    answerWith(90);
    const overMessage = await anthropic.messages
      .create(
        {
          model: 'priced',
          max_tokens: 50,
          messages: [{ role: 'user', content: 'hi' }],
          metadata: { user_id: CAROL },
        },
        { headers: { 'x-gateway-end-user': DAVE } },
      )
      .withResponse();
    charge(DAVE, overMessage.response.headers.get('x-gateway-cost-usd'));
    // No end user at all: in every other report, not in this one.
    answerWith(30);
    await openai.chat.completions.create({
      model: 'priced',
      messages: [{ role: 'user', content: 'hi' }],
    });

    const expected = [...charged]
      .map(([user, { pico, requests }]) => ({
        end_user: user,
        requests,
        cost_usd: formatUsd(pico),
      }))
      .sort((a, b) => (a.end_user < b.end_user ? -1 : 1));
    expect(expected.map((row) => row.end_user)).toEqual([ALICE, BOB, CAROL, DAVE].sort());
    const admin = adminApi(gateway.url);
    for (const filter of [`key_id=${keyId}`, `team_id=${teamId}`])
      await eventually(async () => {
        const report = await admin.get(`/spend?group_by=end_user&${filter}`);
        expect(report.status).toBe(200);
        expect(report.body.group_by).toBe('end_user');
        expect(
          report.body.data.map((row: Record<string, unknown>) => ({
            end_user: row.end_user,
            requests: row.requests,
            cost_usd: row.cost_usd,
          })),
        ).toEqual(expected);
      }, 5_000);
    // The request without an end user is in the key's spend.
    await eventually(async () => {
      const byKey = await admin.get(`/spend?group_by=key&key_id=${keyId}`);
      expect(byKey.body.data[0].requests).toBe(7);
    }, 5_000);

    const csv = await admin.get(`/spend?group_by=end_user&key_id=${keyId}&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toContain('spend-by-end_user');
    const [header, ...lines] = csv.text.trimEnd().split('\r\n');
    expect(header.split(',').slice(0, 2)).toEqual(['end_user', 'requests']);
    expect(lines.map((line) => line.split(',')[0])).toEqual(expected.map((row) => row.end_user));

    const printed: string[] = [];
    await spend(
      cli,
      { groupBy: 'end_user', keyId, format: 'json' },
      { out: (text) => void printed.push(text) },
    );
    expect(
      JSON.parse(printed[0]).map((row: Record<string, unknown>) => ({
        end_user: row.end_user,
        requests: row.requests,
        cost_usd: row.cost_usd,
      })),
    ).toEqual(expected);
  });

  it('filters the dashboard usage page by end user', async () => {
    const session = await dashboardSignIn(gateway.url);
    await eventually(async () => {
      const usage = await request(gateway.url)
        .get(`/dashboard/api/usage?end_user=${encodeURIComponent(DAVE)}`)
        .set('Cookie', session.cookie);
      expect(usage.status).toBe(200);
      expect(usage.body.end_user).toBe(DAVE);
      expect(usage.body.by_key.map((series: { id: string }) => series.id)).toEqual([keyId]);
      // Summed over the buckets: the two requests may straddle one's end.
      const points: Array<{ requests: number; cost_usd: string }> = usage.body.by_key[0].points;
      expect(points.reduce((sum, point) => sum + point.requests, 0)).toBe(2);
      const pico = points.reduce(
        (sum, point) => sum + parseDecimal(point.cost_usd, COST_DECIMALS)!,
        0n,
      );
      expect(pico).toBe(charged.get(DAVE)!.pico);
      expect(usage.body.by_endpoint.map((series: { id: string }) => series.id).sort()).toEqual([
        'chat_completions',
        'messages',
      ]);
    }, 5_000);
    const nobody = await request(gateway.url)
      .get('/dashboard/api/usage?end_user=nobody-at-all')
      .set('Cookie', session.cookie);
    expect(nobody.body.by_key).toEqual([]);
  });

  it('never puts an end user in a metrics label', async () => {
    const metrics = await request(gateway.url).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('priced');
    for (const user of [ALICE, BOB, CAROL, DAVE]) expect(metrics.text).not.toContain(user);
    expect(metrics.text).not.toContain(run);
  });

  describe('an end user over 256 characters is a 400 naming its field, before any upstream call', () => {
    const long = 'u'.repeat(257);
    let calls: number;
    beforeEach(() => (calls = upstream.requests.length));
    afterEach(() => expect(upstream.requests.length).toBe(calls));

    it.each([
      [
        'chat completions',
        () =>
          openai.chat.completions.create({
            model: 'priced',
            messages: [{ role: 'user', content: 'hi' }],
            user: long,
          }),
      ],
      ['responses', () => openai.responses.create({ model: 'priced', input: 'hi', user: long })],
      ['embeddings', () => openai.embeddings.create({ model: 'embed', input: 'hi', user: long })],
    ])('`user` on %s', async (_format, send) => {
      const error = (await send().catch((caught: unknown) => caught)) as InstanceType<
        typeof OpenAI.BadRequestError
      >;
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.code).toBe('invalid_parameter');
      expect(error.param).toBe('user');
    });

    it("`metadata.user_id` on messages, in Anthropic's envelope", async () => {
      const error = (await anthropic.messages
        .create({
          model: 'priced',
          max_tokens: 5,
          messages: [{ role: 'user', content: 'hi' }],
          metadata: { user_id: long },
        })
        .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.BadRequestError>;
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect(error.error).toMatchObject({
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: expect.stringContaining('metadata.user_id'),
        },
      });
    });

    it('the header, on chat completions and on messages', async () => {
      const refused = await chat(
        gateway,
        await gateway.createKey(),
        {},
        { 'x-gateway-end-user': long },
      );
      expect(refused.status).toBe(400);
      expectEnvelope(refused.body, 'invalid_parameter', {
        param: 'x-gateway-end-user',
        type: 'invalid_request_error',
      });
      const error = (await anthropic.messages
        .create(
          { model: 'priced', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
          { headers: { 'x-gateway-end-user': long } },
        )
        .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.BadRequestError>;
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect(error.message).toContain('x-gateway-end-user');
    });

    it('control characters and NUL as well', async () => {
      for (const user of ['a\u0000b', 'line\nbreak']) {
        const refused = await chat(gateway, await gateway.createKey(), { user });
        expect(refused.status).toBe(400);
        expect(refused.body.error.param).toBe('user');
      }
    });
  });
});
