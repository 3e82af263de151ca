import { Module } from '@nestjs/common';
import { FeedbackMcpModule } from '../mcp/mcp.module.js';
import { SitesMcpTools } from './sites-mcp.tools.js';
import { SitesController } from './sites.controller.js';
import { SitesRepository } from './sites.repository.js';
import { SitesService } from './sites.service.js';

/** Owner-managed sites and the issuing of their export tokens; other features reach sites through SitesService. */
@Module({
  imports: [FeedbackMcpModule],
  controllers: [SitesController],
  providers: [SitesRepository, SitesService, SitesMcpTools],
  exports: [SitesService],
})
export class SitesModule {}
