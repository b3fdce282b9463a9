/**
 * Hands out `generator` with `first`, a result already taken from it, put back in front.
 *
 * Taking the first result starts the generator, so its finally block runs however the iteration
 * ends. A generator that is returned before it started never runs its body at all, and would leak
 * whatever it was handed (an open upstream response, an outcome still to record).
 */
export function replayFirst<T, R>(
  first: IteratorResult<T, R>,
  generator: AsyncGenerator<T, R>,
): AsyncIterator<T, R> & AsyncIterable<T> {
  let replay: IteratorResult<T, R> | undefined = first;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      const result = replay;
      replay = undefined;
      return result ? Promise.resolve(result) : generator.next();
    },
    return(value?: R | PromiseLike<R>) {
      replay = undefined;
      return generator.return(value as R);
    },
  };
}
