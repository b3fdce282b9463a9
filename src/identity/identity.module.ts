import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { LimitsModule } from '../limits/limits.module';
import { AccessService } from './access.service';
import { AdminUsersRepository } from './admin-users.repository';
import { CredentialFailures } from './credential-failures';
import { IdentitySettings, identitySettingsFrom } from './identity-settings';
import { IdentityService } from './identity.service';
import { OidcClient } from './oidc-client.service';
import { SignInTransactions } from './sign-in-transactions';

/**
 * Identity for the admin side (docs/sso.md): OpenID Connect sign-in, bearer JWTs, roles from
 * the provider's groups, the Access checks the admin API and the dashboard enforce, and the
 * limit on their failed credentials.
 */
@Module({
  imports: [LimitsModule],
  providers: [
    { provide: IdentitySettings, inject: [AppConfig], useFactory: identitySettingsFrom },
    OidcClient,
    SignInTransactions,
    AdminUsersRepository,
    IdentityService,
    AccessService,
    CredentialFailures,
  ],
  exports: [
    IdentitySettings,
    OidcClient,
    SignInTransactions,
    IdentityService,
    AccessService,
    CredentialFailures,
  ],
})
export class IdentityModule {}
