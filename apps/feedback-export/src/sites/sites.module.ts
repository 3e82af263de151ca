import { Module } from '@nestjs/common';
import { FeedbackTokenAuthenticator } from './feedback-token.authenticator.js';
import { PortfolioTokenGuard } from './portfolio-token.guard.js';
import { AnyFeedbackTokenGuard, SiteReadTokenGuard, SiteWriteTokenGuard } from './site-token.guard.js';
import { SitesController } from './sites.controller.js';
import { SitesRepository } from './sites.repository.js';
import { SitesService } from './sites.service.js';

/** Owner-managed sites and their export tokens, plus the token guards every token route uses. */
@Module({
  controllers: [SitesController],
  providers: [SitesRepository, SitesService, FeedbackTokenAuthenticator, SiteReadTokenGuard, SiteWriteTokenGuard, PortfolioTokenGuard, AnyFeedbackTokenGuard],
  exports: [SitesRepository, SitesService, FeedbackTokenAuthenticator, SiteReadTokenGuard, SiteWriteTokenGuard, PortfolioTokenGuard, AnyFeedbackTokenGuard],
})
export class SitesModule {}
