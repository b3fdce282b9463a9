import { contentText, contentTextLength } from './message-content';
import type { MessageContent } from './provider-adapter.interface';

describe('contentTextLength', () => {
  it("is contentText()'s length, newlines between text parts included", () => {
    const contents: (MessageContent | null)[] = [
      null,
      '',
      'plain',
      [],
      [{ type: 'image_url', image_url: { url: 'data:,' } }],
      [
        { type: 'text', text: 'one' },
        { type: 'image_url', image_url: { url: 'data:,' } },
        { type: 'text', text: 'two' },
      ],
      [
        { type: 'text', text: '' },
        { type: 'text', text: 'after an empty part' },
        { type: 'text', text: '' },
      ],
    ];
    for (const content of contents)
      expect(contentTextLength(content)).toBe(contentText(content).length);
  });
});
