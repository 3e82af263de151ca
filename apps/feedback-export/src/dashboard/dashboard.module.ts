import { Module } from '@nestjs/common';
import { FeedbackModule } from '../feedback/feedback.module.js';
import { SitesModule } from '../sites/sites.module.js';
import { DashboardController, OwnerFeedbackController, OwnerFeedbackCountsController } from './dashboard.controller.js';
import { OwnerFeedbackService } from './owner-feedback.service.js';

/** The owner dashboard page and the owner-side feedback routes it uses. */
@Module({
  imports: [SitesModule, FeedbackModule],
  controllers: [DashboardController, OwnerFeedbackController, OwnerFeedbackCountsController],
  providers: [OwnerFeedbackService],
})
export class DashboardModule {}
