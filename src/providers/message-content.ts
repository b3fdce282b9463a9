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

/** `contentText(content).length`, without building the string (the prompt estimate's hot path). */
export function contentTextLength(content: MessageContent | null | undefined): number {
  if (content == null) return 0;
  if (typeof content === 'string') return content.length;
  let length = 0;
  for (const part of content) {
    // The newline contentText() puts before a part once it has some text.
    if (part.type === 'text') length += (length === 0 ? 0 : 1) + part.text.length;
  }
  return length;
}
