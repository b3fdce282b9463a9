import { COMPATIBILITY_MATRIX } from '../compatibility-matrix';
import { CHAT_COMPLETION_FIELDS, parseChatCompletion } from './create-chat-completion.dto';

describe('parseChatCompletion', () => {
  it('reads exactly the fields the compatibility matrix requires, passes or handles', () => {
    const read = Object.entries(COMPATIBILITY_MATRIX)
      .filter(([, entry]) => entry.handling !== 'drop')
      .map(([field]) => field);
    expect([...CHAT_COMPLETION_FIELDS].sort()).toEqual(read.sort());
  });

  it('treats null as absent and keeps only known message fields', () => {
    const request = parseChatCompletion({
      model: 'm',
      messages: [{ role: 'user', content: 'hi', extra: 1 }],
      temperature: null,
    });
    expect(request).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  });

  it.each(['max_tokens', 'max_completion_tokens'])(
    'refuses a %s no hold could count (1e308), naming it',
    (field) => {
      const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
      expect(() => parseChatCompletion({ ...body, [field]: 1e308 })).toThrow(
        expect.objectContaining({ param: field, status: 400 }),
      );
      expect(parseChatCompletion({ ...body, [field]: 2_147_483_647 })).toMatchObject({
        [field]: 2_147_483_647,
      });
    },
  );
});
