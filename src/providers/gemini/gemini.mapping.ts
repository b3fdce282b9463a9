// The Gemini provider's pure mapping functions, in one place for its adapter.
export * from './gemini.request';
export * from './gemini.response';
export * from './gemini.stream';
export * from './gemini.errors';
export * from './gemini.tool-call-id';
