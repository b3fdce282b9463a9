import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';

interface HealthState {
  consecutiveFailures: number;
  /** While set and in the future, the deployment is skipped. */
  coolingUntil: number | null;
  /** After a cool-down, one request (the probe) is let through; the others keep skipping it. */
  probing: boolean;
}

export type DeploymentHealthStatus = 'healthy' | 'cooling_down' | 'probing' | 'awaiting_probe';

export interface DeploymentHealthView {
  name: string;
  status: DeploymentHealthStatus;
  consecutiveFailures: number;
  /** Epoch ms at which the cool-down ends, while it runs. */
  coolingUntil: number | null;
}

/**
 * Remembers, per deployment name and per gateway instance (in memory, not shared through Redis),
 * which deployments failed repeatedly. After `DEPLOYMENT_FAILURE_THRESHOLD` consecutive failures
 * a deployment cools down for `DEPLOYMENT_COOLDOWN_MS`; then exactly one request probes it, and
 * its outcome closes the cool-down (success) or starts a new one (failure). Kept apart from the
 * router so a dashboard or health endpoint can read `snapshot()`.
 */
@Injectable()
export class DeploymentHealthService {
  readonly failureThreshold: number;
  readonly cooldownMs: number;
  private readonly states = new Map<string, HealthState>();

  constructor(config: AppConfig) {
    this.failureThreshold = config.DEPLOYMENT_FAILURE_THRESHOLD;
    this.cooldownMs = config.DEPLOYMENT_COOLDOWN_MS;
  }

  /** Whether a request may be routed to the deployment now (without claiming a probe). */
  isAvailable(name: string, now = Date.now()): boolean {
    const state = this.states.get(name);
    if (!state || state.coolingUntil === null) return true;
    return state.coolingUntil <= now && !state.probing;
  }

  /**
   * Claims the deployment for one attempt. A deployment past its cool-down is claimed as the
   * probe: until that attempt reports back, no other request is sent to it.
   */
  tryAcquire(name: string, now = Date.now()): boolean {
    if (!this.isAvailable(name, now)) return false;
    const state = this.states.get(name);
    if (state && state.coolingUntil !== null) state.probing = true;
    return true;
  }

  /** When the deployment's cool-down ends (epoch ms), or 0 when it is not cooling down. */
  availableAt(name: string): number {
    return this.states.get(name)?.coolingUntil ?? 0;
  }

  recordSuccess(name: string): void {
    this.states.delete(name);
  }

  /** A failure that is the deployment's (down, timing out, 5xx, 429). */
  recordFailure(name: string, now = Date.now()): void {
    const state = this.stateOf(name);
    state.consecutiveFailures++;
    if (state.probing || state.consecutiveFailures >= this.failureThreshold)
      this.coolDown(state, now + this.cooldownMs);
  }

  /** The provider asked for a pause longer than the router waits (a long Retry-After). */
  coolFor(name: string, ms: number, now = Date.now()): void {
    const state = this.stateOf(name);
    this.coolDown(state, Math.max(state.coolingUntil ?? 0, now + ms));
  }

  /** The attempt ended without a verdict on the deployment (client gone, request invalid). */
  release(name: string): void {
    const state = this.states.get(name);
    if (state) state.probing = false;
  }

  snapshot(now = Date.now()): DeploymentHealthView[] {
    return [...this.states.entries()].map(([name, state]) => ({
      name,
      status:
        state.coolingUntil === null
          ? 'healthy'
          : state.coolingUntil > now
            ? 'cooling_down'
            : state.probing
              ? 'probing'
              : 'awaiting_probe',
      consecutiveFailures: state.consecutiveFailures,
      coolingUntil: state.coolingUntil,
    }));
  }

  private coolDown(state: HealthState, until: number): void {
    state.coolingUntil = until;
    state.probing = false;
  }

  private stateOf(name: string): HealthState {
    let state = this.states.get(name);
    if (!state) {
      state = { consecutiveFailures: 0, coolingUntil: null, probing: false };
      this.states.set(name, state);
    }
    return state;
  }
}
