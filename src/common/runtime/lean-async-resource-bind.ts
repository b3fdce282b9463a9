import { AsyncResource } from 'node:async_hooks';

type Bind = typeof AsyncResource.bind;

/**
 * `AsyncResource.bind` without the deprecated `asyncResource` accessor on what it returns.
 *
 * Nest's interceptor chain binds a function per interceptor, and one more, on every request to a
 * route that has interceptors (@nestjs/core's InterceptorsConsumer), so that an
 * AsyncLocalStorage context set before the chain is still seen by the handler. On Node 20 to 24
 * each bind also defines the accessor that DEP0172 deprecates, with two `deprecate()` wrappers
 * whose prototype is reset: about 5.5 us per bind against 0.1 us for the bind itself, two binds
 * per streamed chat completion (one interceptor; a JSON answer has none). Measured in
 * docs/performance.md, "Sixth pass".
 *
 * What is left is what raw-body and on-finished ship as their own backport of the method, and
 * what Node does once DEP0172 reaches end-of-life (nodejs/node#58618): a new AsyncResource
 * (type as Node names it), and a function that runs `fn` in its scope with the caller's `this`
 * and arguments, or with `thisArg` when given, with `fn`'s length and Node's check that `fn` is a
 * function. Only the accessor is gone, which nothing in the gateway or its dependencies reads.
 */
type Bindable = (this: unknown, ...args: unknown[]) => unknown;

export const leanBind = function bind(fn: Bindable, type?: string, thisArg?: unknown) {
  // Node's own check, so a wrong argument fails here and not when the bound function is called.
  if (typeof fn !== 'function') {
    throw Object.assign(
      new TypeError(`The "fn" argument must be of type function. Received ${typeof fn}`),
      { code: 'ERR_INVALID_ARG_TYPE' },
    );
  }
  const resource = new AsyncResource(type || fn.name || 'bound-anonymous-fn');
  const bound =
    thisArg !== undefined
      ? resource.runInAsyncScope.bind(resource, fn, thisArg)
      : function (this: unknown, ...args: unknown[]) {
          return resource.runInAsyncScope(fn, this, ...args);
        };
  // Both wrappers already have length 0, the length of every function Nest binds: redefining it
  // anyway turned each bound function into a dictionary-mode object, three per chat completion
  // (docs/performance.md, "Ninth pass").
  if (fn.length !== bound.length)
    Object.defineProperty(bound, 'length', { configurable: true, value: fn.length });
  return bound;
} as Bind;

/** True when this Node's bind still defines the deprecated accessor (Node 20 to 24). */
export function bindDefinesDeprecatedAccessor(bind: Bind = AsyncResource.bind): boolean {
  return (
    Object.getOwnPropertyDescriptor(
      bind(() => undefined),
      'asyncResource',
    ) !== undefined
  );
}

/** Puts leanBind in place of the static method where the native one is the costly kind. */
export function installLeanAsyncResourceBind(): void {
  if (bindDefinesDeprecatedAccessor()) AsyncResource.bind = leanBind;
}
