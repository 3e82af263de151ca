import { Module } from '@nestjs/common';
import { ObservabilityModule } from '#libs/common';
import { JwtModule } from '@nestjs/jwt';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { AccessTokenService } from './access-tokens/access-token.service.js';
import { CredentialRevocations } from './accounts/credential-revocations.service.js';
import { JwtAuthGuard } from './access-tokens/jwt-auth.guard.js';
import { JwtStrategy } from './access-tokens/jwt.strategy.js';
import { AccountOAuthGrants, OAuthAccessRepository, OAuthAccessTokenVerifier, OAuthSigningKeys } from './oauth-resource/index.js';
import { PasswordHasher } from './accounts/password-hasher.service.js';
import { SessionAccessRepository } from './access-tokens/session-access.repository.js';
import { UsersRepository } from './accounts/users.repository.js';
import { UsersService } from './accounts/users.service.js';

/** The account system both services share: passwords, access tokens (signed, and checked by JwtAuthGuard), OAuth token verification. */
@Module({
  imports: [ObservabilityModule, 
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        secret: config.jwtSecret,
        signOptions: { algorithm: 'HS256' },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  providers: [PasswordHasher, UsersRepository, UsersService, AccessTokenService, CredentialRevocations, SessionAccessRepository, JwtStrategy, JwtAuthGuard, OAuthAccessRepository, OAuthSigningKeys, OAuthAccessTokenVerifier, AccountOAuthGrants],
  exports: [PasswordHasher, UsersService, AccessTokenService, CredentialRevocations, JwtModule, JwtAuthGuard, OAuthSigningKeys, OAuthAccessTokenVerifier, AccountOAuthGrants],
})
export class AccountsCoreModule {}
