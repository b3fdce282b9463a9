import { Inject, Injectable, Logger } from '@nestjs/common';
import { DatabaseConnection } from '../database/database-connection';
import { VirtualKeyService } from './virtual-key.service';

/**
 * On the embedded defaults, a first start with no keys creates one and prints it once, so a new
 * user can call the gateway right away. Never done against an external database. Called once the
 * server listens (see afterListen): a key printed by a start that then fails would be lost, and
 * the next start would not print one, since a key exists.
 */
@Injectable()
export class DemoKeyService {
  private readonly logger = new Logger('Keys');

  constructor(
    private readonly keys: VirtualKeyService,
    @Inject(DatabaseConnection) private readonly connection: DatabaseConnection,
  ) {}

  async createOnFirstStart(): Promise<void> {
    if (!this.connection.embedded || (await this.keys.count()) > 0) return;
    const { key, secret } = await this.keys.create({ name: 'demo' });
    // "on stdout", not "below": the JSON logger writes asynchronously, so this line may come
    // out after the plain-text one.
    this.logger.log(
      `created virtual key "${key.name}" (${key.keyPrefix}...); its secret is printed once, as plain text on stdout, and never again`,
    );
    // Written to stdout directly rather than through the logger, so log shipping never keeps it.
    process.stdout.write(`\n  Demo virtual key: ${secret}\n\n`);
  }
}
