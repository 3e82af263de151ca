import { Module } from '@nestjs/common';
import { FeedbackTokenAuthenticator } from './feedback-token.authenticator.js';
import { PortfolioTokenGuard } from './portfolio-token.guard.js';
import { AnyFeedbackTokenGuard, SiteReadTokenGuard, SiteWriteTokenGuard } from './site-token.guard.js';
import { TokenAuthRepository } from './token-auth.repository.js';

/** Export-token authentication: the guards of the 'site-read', 'site-write', 'portfolio' and 'feedback-token' schemes. */
@Module({
  providers: [TokenAuthRepository, FeedbackTokenAuthenticator, SiteReadTokenGuard, SiteWriteTokenGuard, PortfolioTokenGuard, AnyFeedbackTokenGuard],
  exports: [FeedbackTokenAuthenticator, SiteReadTokenGuard, SiteWriteTokenGuard, PortfolioTokenGuard, AnyFeedbackTokenGuard],
})
export class TokenAuthModule {}
