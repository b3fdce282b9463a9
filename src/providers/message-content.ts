import type { MessageContent } from './provider-adapter.interface';

/** The text of a message's content: the string itself, or its `text` parts joined by newlines. */
export function contentText(content: MessageContent | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) {
    if (part.type !== 'text') continue;
    text += text === '' ? part.text : `\n${part.text}`;
  }
  return text;
}
