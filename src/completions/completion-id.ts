import { randomBytes } from 'node:crypto';

/** `chatcmpl_<id>` as the contract spells it (underscore, not OpenAI's hyphen). */
export function newCompletionId(): string {
  return `chatcmpl_${randomBytes(12).toString('hex')}`;
}

export function unixSeconds(date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}
