import { Module } from '@nestjs/common';
import { ObservabilityModule } from '#libs/common';
import { FeedbackMcpModule } from '../mcp/mcp.module.js';
import { SitesModule } from '../sites/sites.module.js';
import { FeedbackController } from './feedback.controller.js';
import { FeedbackMcpTools } from './feedback-mcp.tools.js';
import { FeedbackRepository } from './feedback.repository.js';
import { FeedbackService } from './feedback.service.js';

/** Feedback export by cursor (per site and portfolio) and triage; its service also serves MCP. */
@Module({
  imports: [ObservabilityModule, SitesModule, FeedbackMcpModule],
  controllers: [FeedbackController],
  providers: [FeedbackRepository, FeedbackService, FeedbackMcpTools],
  exports: [FeedbackService],
})
export class FeedbackModule {}
