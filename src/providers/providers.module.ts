import { Module } from '@nestjs/common';
import { MockAdapter } from './adapters/mock.adapter';
import { OpenAiCompatibleAdapter } from './adapters/openai-compatible.adapter';
import { ProviderAdapter } from './provider-adapter.interface';
import { ProviderRegistry } from './provider-registry.service';
import { UpstreamHttpClient } from './upstream-http.client';

@Module({
  providers: [
    UpstreamHttpClient,
    OpenAiCompatibleAdapter,
    MockAdapter,
    {
      provide: ProviderAdapter,
      useFactory: (...adapters: ProviderAdapter[]) => adapters,
      inject: [OpenAiCompatibleAdapter, MockAdapter],
    },
    ProviderRegistry,
  ],
  exports: [ProviderRegistry],
})
export class ProvidersModule {}
