import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FeedbackTokenAuthenticator } from './feedback-token.authenticator.js';
import { FeedbackTokenEntity } from './feedback-token.entity.js';
import { PortfolioTokenGuard } from './portfolio-token.guard.js';
import { SiteEntity } from './site.entity.js';
import { AnyFeedbackTokenGuard, SiteReadTokenGuard, SiteWriteTokenGuard } from './site-token.guard.js';
import { SitesController } from './sites.controller.js';
import { SitesRepository } from './sites.repository.js';
import { SitesService } from './sites.service.js';

/** Owner-managed sites and their export tokens, plus the token guards every token route uses. */
@Module({
  imports: [TypeOrmModule.forFeature([SiteEntity, FeedbackTokenEntity])],
  controllers: [SitesController],
  providers: [SitesRepository, SitesService, FeedbackTokenAuthenticator, SiteReadTokenGuard, SiteWriteTokenGuard, PortfolioTokenGuard, AnyFeedbackTokenGuard],
  exports: [SitesRepository, SitesService, FeedbackTokenAuthenticator, SiteReadTokenGuard, SiteWriteTokenGuard, PortfolioTokenGuard, AnyFeedbackTokenGuard],
})
export class SitesModule {}
