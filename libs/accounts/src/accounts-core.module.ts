import { Global, Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { AccessTokenService } from './access-token.service.js';
import { AdminKeyGuard } from './admin-key.guard.js';
import { CredentialRevocations } from './credential-revocations.js';
import { ApiKeyAccessRepository } from './api-key-access.repository.js';
import { ApiKeyAuthGuard } from './api-key-auth.guard.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { JwtOrApiKeyGuard } from './jwt-or-api-key.guard.js';
import { JwtStrategy } from './jwt.strategy.js';
import { OAuthAccessRepository, OAuthAccessTokenVerifier, OAuthSigningKeys } from './oauth/index.js';
import { PasswordHasher } from './password-hasher.js';
import { SessionAccessRepository } from './session-access.repository.js';

/** The account system both services share: token signing and the credential guards. */
@Global()
@Module({
  imports: [
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        secret: config.jwtSecret,
        signOptions: { algorithm: 'HS256' },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  providers: [PasswordHasher, AccessTokenService, CredentialRevocations, SessionAccessRepository, JwtStrategy, JwtAuthGuard, ApiKeyAccessRepository, ApiKeyAuthGuard, AdminKeyGuard, JwtOrApiKeyGuard, OAuthAccessRepository, OAuthSigningKeys, OAuthAccessTokenVerifier],
  exports: [PasswordHasher, AccessTokenService, CredentialRevocations, JwtModule, JwtAuthGuard, ApiKeyAccessRepository, ApiKeyAuthGuard, AdminKeyGuard, JwtOrApiKeyGuard, OAuthSigningKeys, OAuthAccessTokenVerifier],
})
export class AccountsCoreModule {}
