import { Inject, Injectable } from '@nestjs/common';
import type { DeploymentConfig } from '../config/gateway-config.types';
import { ProviderAdapter } from './provider-adapter.interface';

/** Finds the adapter that serves a deployment's `provider`. */
@Injectable()
export class ProviderRegistry {
  private readonly byProvider: Map<string, ProviderAdapter>;

  constructor(@Inject(ProviderAdapter) adapters: ProviderAdapter[]) {
    this.byProvider = new Map(adapters.map((adapter) => [adapter.provider, adapter]));
  }

  adapterFor(deployment: DeploymentConfig): ProviderAdapter {
    const adapter = this.byProvider.get(deployment.provider);
    // Config validation only admits known providers, so a miss here is a programming error.
    if (!adapter) throw new Error(`No adapter registered for provider "${deployment.provider}"`);
    return adapter;
  }
}
