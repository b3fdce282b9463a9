import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { GatewayException } from '../src/common/errors/gateway.exception';
import { loadAppConfig } from '../src/config/app-config';
import { PrismaService } from '../src/database/prisma.service';
import { ResponsesBodyPipe } from '../src/formats/responses/responses-body.pipe';
import { responseSkeleton } from '../src/formats/responses/responses.response';
import type { OutputItem, ResponseObject } from '../src/formats/responses/responses.types';
import { ResponseRetention } from '../src/formats/responses/store/response-retention.service';
import { ResponseStoreRepository } from '../src/formats/responses/store/response-store.repository';
import { ResponseStore } from '../src/formats/responses/store/response-store.service';
import { createDatabase, type ScratchDatabase } from './support/databases';

// The response store on a real Postgres: ownership, chains, deletion, retention, failures.

const pipe = new ResponsesBodyPipe();
const SECRET_TEXT = 'the-user-wrote-this-secret-42';

function storeOn(prisma: PrismaService, env: Record<string, unknown> = {}) {
  const repository = new ResponseStoreRepository(prisma);
  const store = new ResponseStore(repository, loadAppConfig(env));
  return { store, retention: new ResponseRetention(store, repository) };
}

let counter = 0;
function answer(body: Record<string, unknown>, text: string) {
  const request = pipe.transform({ model: 'alpha-k3', ...body });
  const id = `resp_test${counter++}_${randomUUID().slice(0, 8)}`;
  const output: OutputItem[] = [
    {
      type: 'message',
      id: `msg_out${counter}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    },
  ];
  const response: ResponseObject = {
    ...responseSkeleton(request, { id, createdAt: 1_700_000_000, model: 'alpha-k3', store: true }),
    status: 'completed',
    output,
  };
  return { request, response };
}

describe('ResponseStore on Postgres', () => {
  let database: ScratchDatabase;
  let prisma: PrismaService;
  let store: ResponseStore;
  let retention: ResponseRetention;
  const keyA = randomUUID();
  const keyB = randomUUID();

  beforeAll(async () => {
    database = await createDatabase('responses_store');
    prisma = new PrismaService({ url: database.url, embedded: null }, loadAppConfig({}));
    ({ store, retention } = storeOn(prisma, { RESPONSES_RETENTION_DAYS: 30 }));
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  async function saved(body: Record<string, unknown>, text: string, key = keyA) {
    const { request, response } = answer(body, text);
    expect(await store.save(key, request, response)).toBe(true);
    return { request, response };
  }

  it('returns a stored response to its key only, with ids on its input items', async () => {
    const { response } = await saved(
      {
        input: [
          { role: 'user', content: 'Hi' },
          { role: 'user', content: 'Again', id: 'msg_mine' },
        ],
      },
      'Hello',
    );
    expect(await store.retrieve(response.id, keyA)).toEqual(response);
    const items = await store.inputItems(response.id, keyA, {});
    expect(items.data.map((item) => item.id)).toEqual(['msg_mine', expect.stringMatching(/^msg_/)]);
    await expect(store.retrieve(response.id, keyB)).rejects.toMatchObject({
      code: 'response_not_found',
      status: 404,
    });
    await expect(store.inputItems(response.id, keyB, {})).rejects.toMatchObject({
      code: 'response_not_found',
    });
    await expect(store.delete(response.id, keyB)).rejects.toMatchObject({
      code: 'response_not_found',
    });
  });

  it('stores many responses written at once, each caller waiting for its own row', async () => {
    const answers = Array.from({ length: 150 }, (_, i) => answer({ input: `Q${i}` }, `A${i}`));
    const results = await Promise.all(
      answers.map(({ request, response }) => store.save(keyA, request, response)),
    );
    expect(results.every((stored) => stored)).toBe(true);
    const rows = await prisma.storedResponse.count({
      where: { id: { in: answers.map(({ response }) => response.id) } },
    });
    expect(rows).toBe(150);
    expect((await store.retrieve(answers[149].response.id, keyA)).output).toEqual(
      answers[149].response.output,
    );
  });

  it('gives a chain as the conversation, oldest first, without instructions', async () => {
    const first = await saved({ instructions: 'Old rules', input: 'Weather in Oslo?' }, 'Calling');
    const second = await saved(
      { previous_response_id: first.response.id, input: 'And Bergen?' },
      'Rainy',
    );
    const { request } = answer({ previous_response_id: second.response.id, input: 'Thanks' }, '');
    const history = await store.history(request, keyA);
    expect(history).toEqual([
      expect.objectContaining({
        role: 'user',
        content: [{ type: 'input_text', text: 'Weather in Oslo?' }],
      }),
      first.response.output[0],
      expect.objectContaining({
        role: 'user',
        content: [{ type: 'input_text', text: 'And Bergen?' }],
      }),
      second.response.output[0],
    ]);
    await expect(store.history(request, keyB)).rejects.toMatchObject({
      code: 'response_not_found',
      param: 'previous_response_id',
    });
  });

  it('refuses a chain with any response gone, and deletes once', async () => {
    const first = await saved({ input: 'One' }, 'A');
    const second = await saved({ previous_response_id: first.response.id, input: 'Two' }, 'B');
    expect(await store.delete(first.response.id, keyA)).toEqual({
      id: first.response.id,
      object: 'response',
      deleted: true,
    });
    await expect(store.delete(first.response.id, keyA)).rejects.toMatchObject({
      code: 'response_not_found',
      param: null,
    });
    const { request } = answer({ previous_response_id: second.response.id, input: 'Three' }, '');
    await expect(store.history(request, keyA)).rejects.toMatchObject({
      code: 'response_not_found',
      param: 'previous_response_id',
      status: 404,
    });
  });

  it('pages input items newest first by default, with after and limit', async () => {
    const input = ['a', 'b', 'c', 'd', 'e'].map((text) => ({
      role: 'user',
      content: text,
      id: `msg_${text}`,
    }));
    const { response } = await saved({ input }, 'ok');
    const ids = (list: { data: Array<{ id?: string }> }) => list.data.map((item) => item.id);
    const page = await store.inputItems(response.id, keyA, { limit: 2 });
    expect(page).toMatchObject({
      object: 'list',
      first_id: 'msg_e',
      last_id: 'msg_d',
      has_more: true,
    });
    expect(ids(page)).toEqual(['msg_e', 'msg_d']);
    expect(ids(await store.inputItems(response.id, keyA, { after: 'msg_d', limit: 2 }))).toEqual([
      'msg_c',
      'msg_b',
    ]);
    const last = await store.inputItems(response.id, keyA, { order: 'asc', after: 'msg_c' });
    expect(ids(last)).toEqual(['msg_d', 'msg_e']);
    expect(last.has_more).toBe(false);
    await expect(store.inputItems(response.id, keyA, { after: 'msg_zz' })).rejects.toMatchObject({
      code: 'invalid_parameter',
      param: 'after',
    });
  });

  it('treats responses past retention as gone, and deletes them', async () => {
    const old = await saved({ input: 'Old' }, 'old');
    const fresh = await saved({ input: 'New' }, 'new');
    await prisma.$executeRaw`
      UPDATE stored_responses SET created_at = now() - interval '31 days' WHERE id = ${old.response.id}`;
    await expect(store.retrieve(old.response.id, keyA)).rejects.toMatchObject({
      code: 'response_not_found',
    });
    expect(await retention.deleteExpired()).toBe(1);
    const rows = await prisma.storedResponse.findMany({
      where: { id: { in: [old.response.id, fresh.response.id] } },
    });
    expect(rows.map((row) => row.id)).toEqual([fresh.response.id]);
  });

  it('with RESPONSES_STORE=off stores nothing and refuses what needs the store', async () => {
    const { response } = await saved({ input: 'Kept before' }, 'x');
    const { store: off } = storeOn(prisma, { RESPONSES_STORE: 'off' });
    expect(off.storesFor(pipe.transform({ model: 'm', input: 'Hi' }))).toBe(false);
    expect(() => off.storesFor(pipe.transform({ model: 'm', input: 'Hi', store: true }))).toThrow(
      expect.objectContaining({ code: 'store_disabled', param: 'store', status: 400 }),
    );
    expect(() =>
      off.storesFor(pipe.transform({ model: 'm', input: 'Hi', previous_response_id: response.id })),
    ).toThrow(expect.objectContaining({ code: 'store_disabled', param: 'previous_response_id' }));
    for (const call of [
      () => off.retrieve(response.id, keyA),
      () => off.inputItems(response.id, keyA, {}),
      () => off.delete(response.id, keyA),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'response_not_found' });
    }
    expect(store.storesFor(pipe.transform({ model: 'm', input: 'Hi' }))).toBe(true);
    expect(store.storesFor(pipe.transform({ model: 'm', input: 'Hi', store: false }))).toBe(false);
  });

  it('survives a database failure without logging the conversation', async () => {
    const lines: string[] = [];
    const spies = (['log', 'error', 'warn', 'debug', 'verbose'] as const).map((level) =>
      jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => {
        lines.push(args.map(String).join(' '));
      }),
    );
    const down = new PrismaService(
      { url: 'postgresql://postgres@127.0.0.1:1/none', embedded: null },
      loadAppConfig({}),
    );
    try {
      const { store: broken } = storeOn(down);
      const { request, response } = answer({ input: SECRET_TEXT }, SECRET_TEXT);
      expect(await broken.save(keyA, request, response)).toBe(false);
      const continued = answer({ previous_response_id: response.id, input: SECRET_TEXT }, '');
      const error = await broken.history(continued.request, keyA).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayException);
      expect(error).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toContain(SECRET_TEXT);
    } finally {
      spies.forEach((spy) => spy.mockRestore());
      await down.$disconnect();
    }
  });
});
