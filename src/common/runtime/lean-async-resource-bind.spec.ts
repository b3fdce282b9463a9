import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import { AsyncLocalStorage, AsyncResource, createHook } from 'node:async_hooks';
import { lastValueFrom, type Observable } from 'rxjs';
import {
  bindDefinesDeprecatedAccessor,
  installLeanAsyncResourceBind,
  leanBind,
} from './lean-async-resource-bind';

describe('leanBind', () => {
  const store = new AsyncLocalStorage<string>();

  it('runs the function in the context it was bound in, not the caller’s', () => {
    const bound = store.run('bound here', () => leanBind(() => store.getStore()));
    expect(store.run('caller', () => bound())).toBe('bound here');
    expect(bound()).toBe('bound here');
  });

  it('passes the arguments and the caller’s this, or thisArg when given', () => {
    function describeCall(this: unknown, a: number, b: number) {
      return `${(this as { name?: string } | undefined)?.name ?? 'none'}:${a + b}`;
    }
    const method = { name: 'caller', call: leanBind(describeCall) };
    expect(method.call(1, 2)).toBe('caller:3');
    expect(leanBind(describeCall, undefined, { name: 'given' })(3, 4)).toBe('given:7');
  });

  it('names the resource as Node does and keeps the function’s length', () => {
    const types: string[] = [];
    const hook = createHook({ init: (_id, type) => types.push(type) });
    hook.enable();
    try {
      leanBind(function named(_a: number, _b: number) {
        return 0;
      });
      leanBind(() => 0, 'explicit');
      leanBind(
        // An anonymous function expression passed directly has no name.
        [(_x: number) => 0][0],
      );
    } finally {
      hook.disable();
    }
    expect(types).toEqual(['named', 'explicit', 'bound-anonymous-fn']);
    expect(leanBind((_a: number, _b: number, _c: number) => 0).length).toBe(3);
    expect(leanBind((_a: number, _b: number) => 0, undefined, {}).length).toBe(2);
    expect(leanBind(() => 0).length).toBe(0);
    expect(leanBind(() => 0, undefined, {}).length).toBe(0);
  });

  it('rejects what is not a function when binding, as Node does', () => {
    const notAFunction = 'not a function' as unknown as () => void;
    expect(() => leanBind(notAFunction)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }),
    );
    expect(() => AsyncResource.bind(notAFunction)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }),
    );
  });

  it('defines no deprecated asyncResource accessor', () => {
    expect(bindDefinesDeprecatedAccessor(leanBind)).toBe(false);
  });
});

describe('installLeanAsyncResourceBind', () => {
  const native = AsyncResource.bind;
  afterEach(() => {
    AsyncResource.bind = native;
  });

  it('replaces the native bind exactly where it defines the deprecated accessor', () => {
    const costly = bindDefinesDeprecatedAccessor(native);
    installLeanAsyncResourceBind();
    expect(AsyncResource.bind === leanBind).toBe(costly);
  });

  it('keeps the context through Nest’s interceptor chain, which binds once per interceptor and once more', async () => {
    let binds = 0;
    AsyncResource.bind = ((...args: Parameters<typeof leanBind>) => {
      binds++;
      return leanBind(...args);
    }) as typeof leanBind;
    const store = new AsyncLocalStorage<string>();
    const passThrough = {
      intercept: (_context: unknown, next: { handle: () => Observable<unknown> }) => next.handle(),
    };
    const result = await store.run('request', async () => {
      const chain = await new InterceptorsConsumer().intercept(
        [passThrough, passThrough],
        [],
        {},
        () => undefined,
        // The handler reads the context after an await, as the completions handler does.
        async () => {
          await new Promise((resolve) => setImmediate(resolve));
          return store.getStore();
        },
      );
      return lastValueFrom(chain as Observable<unknown>);
    });
    expect(result).toBe('request');
    expect(binds).toBe(3);
  });
});
