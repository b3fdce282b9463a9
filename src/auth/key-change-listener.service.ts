import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { Client } from 'pg';
import { DatabaseConnection } from '../database/database-connection';
import { databaseTimeouts, DatabaseTimeouts } from '../database/database-timeouts';
import { KEY_CHANGE_CHANNEL } from '../keys/virtual-key-events';
import { VirtualKeyVerifier } from './virtual-key-verifier.service';
import { AppConfig } from '../config/app-config';

/**
 * Short, because each failed attempt against a silent network already waits DB_CONNECT_TIMEOUT_MS:
 * the listener is back at most connect timeout + 2 s after the database is.
 */
const RECONNECT_DELAYS_MS = [100, 500, 1_000, 2_000];

/**
 * Holds one dedicated Postgres connection LISTENing on KEY_CHANGE_CHANNEL, so a key revoked,
 * rotated or changed on any instance is dropped from this instance's cache within milliseconds
 * rather than after KEY_CACHE_TTL_MS. Reconnects on failure; because notifications sent while
 * disconnected are lost, a reconnect clears the whole cache.
 */
@Injectable()
export class KeyChangeListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('KeyChanges');
  private client: Client | null = null;
  private retryTimer?: NodeJS.Timeout;
  private pingTimer?: NodeJS.Timeout;
  private failures = 0;
  private stopped = false;
  private readonly timeouts: DatabaseTimeouts;
  /**
   * A dead TCP peer (packets dropped, no RST) stays silent for minutes and TCP keepalive through
   * the OS defaults takes longer still; a ping every interval, bounded by DB_PING_TIMEOUT_MS,
   * notices it within interval + timeout.
   */
  private readonly pingIntervalMs: number;

  constructor(
    @Inject(DatabaseConnection) private readonly connection: DatabaseConnection,
    private readonly verifier: VirtualKeyVerifier,
    config: AppConfig,
  ) {
    this.timeouts = databaseTimeouts(config);
    this.pingIntervalMs = config.KEY_LISTENER_PING_INTERVAL_MS;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.connection.embedded) {
      // PGlite serves every connection from one backend session, so a LISTEN on one socket
      // does not get other sockets' notifications. The embedded mode runs one gateway anyway;
      // its own changes reach its cache in-process.
      this.logger.log(
        'embedded database: key changes made by other processes (the CLI) apply within KEY_CACHE_TTL_MS',
      );
      return;
    }
    await this.connect();
    this.pingTimer = setInterval(() => void this.ping(), this.pingIntervalMs).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    // Named so operators can find it in pg_stat_activity, one per gateway process.
    // query_timeout: a half-open connection fails the next ping in seconds, not TCP's minutes.
    const client = new Client({
      connectionString: this.connection.url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      query_timeout: this.timeouts.pingMs,
      connectionTimeoutMillis: this.timeouts.connectMs,
      application_name: listenerName(),
    });
    client.on('notification', (message) => {
      if (message.channel === KEY_CHANGE_CHANNEL && message.payload)
        this.verifier.forgetKey(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${KEY_CHANGE_CHANNEL}`);
    } catch (error) {
      this.lost(client, error as Error);
      return;
    }
    if (this.stopped) return void client.end().catch(() => undefined);
    this.client = client;
    if (this.failures > 0) {
      this.verifier.forget();
      this.logger.log(
        `listening for key changes again after ${this.failures} failed attempt(s); key cache cleared`,
      );
    }
    this.failures = 0;
  }

  private lost(client: Client, error?: Error): void {
    if (this.stopped || (this.client !== null && this.client !== client)) return;
    if (this.client === client) this.client = null;
    // A late event from this dead client must not schedule a second reconnect.
    client.removeAllListeners('end');
    client.removeAllListeners('error');
    client.on('error', () => undefined);
    client.end().catch(() => undefined);
    if (this.retryTimer) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(this.failures, RECONNECT_DELAYS_MS.length - 1)];
    this.failures++;
    // Loud once per outage: the attempts after the first are debug lines, and the reconnect
    // logs how many there were.
    const message = `key change listener lost its connection (${error?.message ?? 'closed'}); reconnecting in ${delay} ms`;
    if (this.failures === 1) this.logger.warn(message);
    else this.logger.debug(message);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
  }

  private async ping(): Promise<void> {
    const client = this.client;
    if (!client) return;
    await client.query('SELECT 1').catch((error: Error) => this.lost(client, error));
  }
}

export function listenerName(pid = process.pid): string {
  return `llm-gateway key listener ${pid}`;
}
