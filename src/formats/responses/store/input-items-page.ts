import { invalidParameter } from '../../../common/validation/invalid-parameter';
import type { InputItem } from '../responses.types';

export interface InputItemsQuery {
  /** `desc` (the default, as on OpenAI): the last item given first. */
  order?: 'asc' | 'desc';
  /** The id of the item after which the page starts, in that order. */
  after?: string;
  limit?: number;
}

export const DEFAULT_PAGE_SIZE = 20;

export interface InputItemList {
  object: 'list';
  data: InputItem[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** One page of a response's input items in OpenAI's cursor-list shape. */
export function inputItemsPage(items: readonly InputItem[], query: InputItemsQuery): InputItemList {
  const ordered = query.order === 'asc' ? [...items] : [...items].reverse();
  let start = 0;
  if (query.after !== undefined) {
    const index = ordered.findIndex((item) => item.id === query.after);
    if (index === -1) throw invalidParameter('after', 'names no input item of this response');
    start = index + 1;
  }
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const data = ordered.slice(start, start + limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: start + limit < ordered.length,
  };
}
