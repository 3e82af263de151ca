import { Module } from '@nestjs/common';
import { FeedbackModule } from '../feedback/feedback.module.js';
import { SitesModule } from '../sites/sites.module.js';
import { WidgetController } from './widget.controller.js';
import { WidgetService } from './widget.service.js';

@Module({
  imports: [SitesModule, FeedbackModule],
  controllers: [WidgetController],
  providers: [WidgetService],
})
export class WidgetModule {}
