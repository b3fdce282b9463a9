import type { Type } from '@nestjs/common';
import { AnthropicAdapter } from './anthropic/anthropic.adapter';
import { GeminiAdapter } from './gemini/gemini.adapter';
import { MockAdapter } from './mock/mock.adapter';
import { OpenAiCompatibleAdapter } from './openai/openai.adapter';
import type { ProviderAdapter } from './provider-adapter.interface';

/**
 * Every provider the gateway can route to: one line each. An adapter's `provider` is the value a
 * deployment names in the config (PROVIDER_NAMES in src/config/gateway-config.types.ts).
 */
export const PROVIDER_ADAPTERS: ReadonlyArray<Type<ProviderAdapter>> = [
  OpenAiCompatibleAdapter,
  AnthropicAdapter,
  GeminiAdapter,
  MockAdapter,
];
