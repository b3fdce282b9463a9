// The Anthropic provider's pure mapping functions, in one place for its adapter.
export * from './anthropic.request';
export * from './anthropic.response';
export * from './anthropic.stream';
export * from './anthropic.errors';
