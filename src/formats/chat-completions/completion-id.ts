import { randomHex12 } from '../../common/ids/random-hex';

/** `chatcmpl_<id>` as the contract spells it (underscore, not OpenAI's hyphen). */
export function newCompletionId(): string {
  return `chatcmpl_${randomHex12()}`;
}

export function unixSeconds(date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}
