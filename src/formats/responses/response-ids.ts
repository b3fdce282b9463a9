import { randomHex12 } from '../../common/ids/random-hex';
import type { InputItem } from './responses.types';

// Ids in OpenAI's prefixes: clients and logs tell a response from its items by them.

export function newResponseId(): string {
  return `resp_${randomHex12()}${randomHex12()}`;
}

const ITEM_PREFIXES: Record<InputItem['type'], string> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  custom_tool_call: 'ctc',
  custom_tool_call_output: 'ctco',
  reasoning: 'rs',
};

export function newItemId(type: InputItem['type']): string {
  return `${ITEM_PREFIXES[type]}_${randomHex12()}`;
}

/** The items with an id each, as stored and listed: the client's own ids are kept. */
export function withItemIds<T extends InputItem>(items: readonly T[]): T[] {
  return items.map((item) => (item.id ? item : { ...item, id: newItemId(item.type) }));
}
