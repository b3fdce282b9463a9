import { Module } from '@nestjs/common';
import { PROVIDER_ADAPTERS } from './provider-list';
import { ProviderAdapter } from './provider-adapter.interface';
import { ProviderRegistry } from './provider-registry.service';
import { UpstreamHttpClient } from './upstream-http.client';

@Module({
  providers: [
    UpstreamHttpClient,
    ...PROVIDER_ADAPTERS,
    {
      provide: ProviderAdapter,
      useFactory: (...adapters: ProviderAdapter[]) => adapters,
      inject: [...PROVIDER_ADAPTERS],
    },
    ProviderRegistry,
  ],
  exports: [ProviderRegistry],
})
export class ProvidersModule {}
