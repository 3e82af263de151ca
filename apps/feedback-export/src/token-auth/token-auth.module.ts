import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '#libs/identity';
import { FeedbackTokenAuthenticator } from './feedback-token.authenticator.js';
import { PortfolioTokenGuard } from './portfolio-token.guard.js';
import { AnyFeedbackTokenGuard, SiteReadTokenGuard, SiteWriteTokenGuard } from './site-token.guard.js';
import { SiteWriteTokenOrJwtGuard } from './site-write-or-jwt.guard.js';
import { TokenAuthRepository } from './token-auth.repository.js';

/** Export-token authentication: the guards of the 'site-read', 'site-write', 'portfolio', 'feedback-token' and 'site-write-or-jwt' schemes. */
@Module({
  imports: [AccountsCoreModule],
  providers: [TokenAuthRepository, FeedbackTokenAuthenticator, SiteReadTokenGuard, SiteWriteTokenGuard, PortfolioTokenGuard, AnyFeedbackTokenGuard, SiteWriteTokenOrJwtGuard],
  exports: [FeedbackTokenAuthenticator, SiteReadTokenGuard, SiteWriteTokenGuard, PortfolioTokenGuard, AnyFeedbackTokenGuard, SiteWriteTokenOrJwtGuard],
})
export class TokenAuthModule {}
