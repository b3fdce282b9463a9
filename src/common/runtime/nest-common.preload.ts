import { withDeferredDateTimeFormat } from './deferred-date-time-format';

/**
 * Loads @nestjs/common with the two date formatters it builds at load time deferred
 * (deferred-date-time-format.ts says why: about 7 MiB of RSS). bootstrap.ts imports this before
 * anything else that imports @nestjs/common, so that the load happens here; later imports get
 * the same module from Node's cache.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
withDeferredDateTimeFormat(() => require('@nestjs/common') as typeof import('@nestjs/common'));
