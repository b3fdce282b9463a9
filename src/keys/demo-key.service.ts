import { Inject, Injectable, Logger } from '@nestjs/common';
import { writeToStdout } from '../common/logging/stdout-destination';
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
    this.logger.log(
      `created virtual key "${key.name}" (${key.keyPrefix}...); its secret is printed once, as plain text on stdout, and never again`,
    );
    // Plain text on stdout, not a log record that log shipping would parse and keep; after the
    // log lines written before it.
    writeToStdout(`\n  Demo virtual key: ${secret}\n\n`);
  }
}
