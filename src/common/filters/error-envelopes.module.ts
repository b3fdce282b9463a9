import { Global, Module } from '@nestjs/common';
import { ErrorEnvelopes } from './error-envelope';

/** Global, so that each wire-format module can register its envelope for the filter. */
@Global()
@Module({ providers: [ErrorEnvelopes], exports: [ErrorEnvelopes] })
export class ErrorEnvelopesModule {}
