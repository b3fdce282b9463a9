import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DatabaseConnection } from '../database/database-connection';
import { VirtualKeyService } from './virtual-key.service';

/**
 * On the embedded defaults, a first start with no keys creates one and prints it once, so a new
 * user can call the gateway right away. Never done against an external database.
 */
@Injectable()
export class DemoKeyService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Keys');

  constructor(
    private readonly keys: VirtualKeyService,
    @Inject(DatabaseConnection) private readonly connection: DatabaseConnection,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.connection.embedded || (await this.keys.count()) > 0) return;
    const { key, secret } = await this.keys.create({ name: 'demo' });
    this.logger.log(`created virtual key "${key.name}" (${key.keyPrefix}...); it is shown once below and never again`);
    // Written to stdout directly rather than through the logger, so log shipping never keeps it.
    process.stdout.write(`\n  Demo virtual key: ${secret}\n\n`);
  }
}
