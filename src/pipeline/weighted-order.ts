/**
 * A random order of `items` in which each item comes first with probability proportional to its
 * weight (Efraimidis-Spirakis weighted sampling without replacement: sort by u^(1/w)). Items of
 * weight 0 are left out; the caller places them.
 */
export function weightedOrder<T>(
  items: readonly T[],
  weightOf: (item: T) => number,
  random: () => number = Math.random,
): T[] {
  return items
    .filter((item) => weightOf(item) > 0)
    .map((item) => ({ item, key: Math.pow(random(), 1 / weightOf(item)) }))
    .sort((a, b) => b.key - a.key)
    .map(({ item }) => item);
}
