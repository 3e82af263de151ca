import { Module } from '@nestjs/common';
import { SitesModule } from '../sites/sites.module.js';
import { FeedbackController } from './feedback.controller.js';
import { FeedbackRepository } from './feedback.repository.js';
import { FeedbackService } from './feedback.service.js';

/** Feedback export by cursor (per site and portfolio) and triage; its service also serves MCP. */
@Module({
  imports: [SitesModule],
  controllers: [FeedbackController],
  providers: [FeedbackRepository, FeedbackService],
  exports: [FeedbackRepository, FeedbackService],
})
export class FeedbackModule {}
