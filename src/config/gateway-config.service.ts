import { Logger } from '@nestjs/common';
import type { AppConfig } from './app-config';
import { embeddedDefaultConfig, loadGatewayConfig } from './gateway-config.loader';
import { DeploymentConfig, GatewayConfig } from './gateway-config.types';
import { NO_ALIASES, resolveAlias } from './model-aliases';

/** What a reload did: the models now served, or why the running config was kept. */
export type ReloadResult =
  | { reloaded: true; source: string; models: string[] }
  | { reloaded: false; source: string; models: string[]; error: string };

/**
 * The model routing table. Loaded and validated at boot, and again on reload (SIGHUP or
 * POST /admin/config/reload). The table is one immutable snapshot replaced by a single
 * assignment: a request reads `deploymentsFor()` once and keeps the deployments it got, so a
 * reload never changes a request or stream already under way, and the next request sees the new
 * table at once.
 */
export class GatewayConfigService {
  private readonly logger = new Logger(GatewayConfigService.name);
  private snapshot: GatewayConfig;

  /** `path`: the GATEWAY_CONFIG file a reload re-reads; undefined for a fixed table (embedded defaults, tests). */
  constructor(
    config: GatewayConfig,
    private readonly path?: string,
  ) {
    this.snapshot = config;
  }

  static fromEnvironment(env: AppConfig): GatewayConfigService {
    const logger = new Logger(GatewayConfigService.name);
    const path = env.GATEWAY_CONFIG;
    const service = new GatewayConfigService(
      path ? loadGatewayConfig(path) : embeddedDefaultConfig(),
      path,
    );
    if (path) logger.log(`Loaded ${service.config.models.size} public model(s) from ${path}`);
    else
      logger.warn(
        `GATEWAY_CONFIG is not set: serving ${service.publicModels().join(', ')} with the built-in mock adapter`,
      );
    return service;
  }

  /** The current snapshot; read it per request, never keep it in a field. */
  get config(): GatewayConfig {
    return this.snapshot;
  }

  publicModels(): string[] {
    return [...this.snapshot.models.keys()];
  }

  deploymentsFor(model: string): DeploymentConfig[] | undefined {
    return this.snapshot.models.get(model);
  }

  /** The model's own `request_timeout_ms`, if it sets one. */
  requestTimeoutFor(model: string): number | undefined {
    return this.snapshot.requestTimeouts.get(model);
  }

  /**
   * The public model a request naming `model` is served by: itself, or the model its alias stands
   * for; unknown names come back unchanged (and answer 404 where they are routed).
   */
  publicModel(model: string): string {
    const { models, aliases = NO_ALIASES } = this.snapshot;
    if (models.has(model)) return model;
    return resolveAlias(aliases, model) ?? model;
  }

  /** The exact aliases and their public models (prefix aliases name no model to list). */
  exactAliases(): ReadonlyMap<string, string> {
    return (this.snapshot.aliases ?? NO_ALIASES).exact;
  }

  /**
   * Re-reads GATEWAY_CONFIG. The file is read and fully validated before the swap, so an
   * invalid file changes nothing: the running table stays, and one error line names the problem.
   * Synchronous (the file is small): no request can observe a half-built table.
   */
  reload(): ReloadResult {
    if (!this.path) {
      const error = 'GATEWAY_CONFIG is not set: the embedded defaults have no file to reload';
      this.logger.warn(`Config reload skipped: ${error}`);
      return { reloaded: false, source: this.snapshot.source, models: this.publicModels(), error };
    }
    let next: GatewayConfig;
    try {
      next = loadGatewayConfig(this.path);
    } catch (error) {
      const message = (error as Error).message;
      this.logger.error(
        `Config reload failed, keeping the running config (${this.snapshot.models.size} model(s)): ${message}`,
      );
      return { reloaded: false, source: this.path, models: this.publicModels(), error: message };
    }
    const before = new Set(this.snapshot.models.keys());
    this.snapshot = next;
    const models = this.publicModels();
    const added = models.filter((model) => !before.has(model));
    const removed = [...before].filter((model) => !next.models.has(model));
    this.logger.log(
      `Reloaded ${models.length} public model(s) from ${this.path}` +
        (added.length ? `; added ${added.join(', ')}` : '') +
        (removed.length ? `; removed ${removed.join(', ')}` : ''),
    );
    return { reloaded: true, source: this.path, models };
  }
}
