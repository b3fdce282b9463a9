import { GatewayException } from '../../common/errors/gateway.exception';
import { DEPLOYMENT, encoder, parse, run, text, USAGE } from './responses-stream.fixture';
import type { ResponseObject } from './responses.types';

describe('ResponseEvents', () => {
  it('streams a message and ends with the stored, completed response', async () => {
    const { wire, types, last, stored } = await run([
      [text('Hel')],
      [text('lo'), text(' there', 'stop')],
    ]);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(wire[0].response).toMatchObject({
      id: 'resp_test',
      object: 'response',
      status: 'in_progress',
      model: 'alias-model',
      output: [],
      usage: null,
    });
    const itemId = wire[2].item.id as string;
    expect(itemId).toMatch(/^msg_/);
    expect(wire[2].item).toEqual({
      type: 'message',
      id: itemId,
      role: 'assistant',
      status: 'in_progress',
      content: [],
    });
    expect(
      wire.slice(3, 10).every((event) => event.item_id === itemId || event.item?.id === itemId),
    ).toBe(true);
    expect(wire[7]).toMatchObject({ text: 'Hello there', output_index: 0, content_index: 0 });
    const response = last.response as ResponseObject;
    expect(response).toMatchObject({
      id: 'resp_test',
      status: 'completed',
      store: true,
      incomplete_details: null,
      output: [
        {
          type: 'message',
          id: itemId,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello there', annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 20,
        input_tokens_details: { cached_tokens: 4 },
        output_tokens: 7,
        output_tokens_details: { reasoning_tokens: 2 },
        total_tokens: 27,
      },
    });
    expect(response.completed_at).toEqual(expect.any(Number));
    expect(stored).toHaveBeenCalledWith(response);
  });

  it('ends a cut answer with response.incomplete', async () => {
    const { last } = await run([[text('Once upon', 'length')]]);
    expect(last.type).toBe('response.incomplete');
    expect(last.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      completed_at: null,
      output: [expect.objectContaining({ status: 'incomplete' })],
    });
  });

  it('waits for the store before the last event, and says so when it failed', async () => {
    let release!: (stored: boolean) => void;
    const persist = jest.fn(() => new Promise<boolean>((resolve) => (release = resolve)));
    const { events } = encoder({}, persist);
    events.encode([text('Hi', 'stop')]);
    let ended = false;
    const ending = events.end({ usage: USAGE, deployment: DEPLOYMENT }).then((frames) => {
      ended = true;
      return frames;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(persist).toHaveBeenCalledTimes(1);
    expect(ended).toBe(false);
    release(false);
    const last = parse(await ending).pop()!;
    expect(last).toMatchObject({ type: 'response.completed', response: { store: false } });
  });

  it('does not store a response the request asked not to store', async () => {
    const persist = jest.fn(async () => true);
    const { last } = await run([[text('Hi', 'stop')]], { store: false }, persist);
    expect(persist).not.toHaveBeenCalled();
    expect(last.response.store).toBe(false);
  });

  it('ends a stream failing after its first event with response.failed', () => {
    const { events } = encoder();
    const frames =
      events.encode([text('Partial')]) +
      events.error(new GatewayException('upstream_error', { message: 'The provider went away.' }));
    const wire = parse(frames);
    expect(wire.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(wire[5]).toMatchObject({
      type: 'response.failed',
      response: {
        id: 'resp_test',
        status: 'failed',
        error: { code: 'upstream_error', message: 'The provider went away.' },
        output: [{ type: 'message', id: wire[2].item.id, status: 'incomplete' }],
      },
    });
    expect(parse(events.error(new Error('boom')))[0].response.error.code).toBe('internal_error');
  });

  it('answers a stream with no output at all with an empty message, as JSON does', async () => {
    const { types, last } = await run([[{ type: 'delta', finishReason: 'stop' }]]);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(last.response.output).toEqual([
      expect.objectContaining({
        type: 'message',
        content: [expect.objectContaining({ text: '' })],
      }),
    ]);
  });
});
