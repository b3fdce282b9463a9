import { Global, Module } from '@nestjs/common';
import { TeamsRepository } from './teams.repository';
import { TeamsService } from './teams.service';

/** Teams of keys (docs/spend.md). Global, like the usage sink: the request path and the admin surfaces both read them. */
@Global()
@Module({
  providers: [TeamsRepository, TeamsService],
  exports: [TeamsService],
})
export class TeamsModule {}
