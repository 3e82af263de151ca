import { Module } from '@nestjs/common';
import { ObservabilityModule } from '#libs/common';
import { MailModule } from '#libs/mail';
import { FeedbackMcpModule } from '../mcp/mcp.module.js';
import { SitesModule } from '../sites/sites.module.js';
import { OwnerQuestionsController, QuestionsController } from './questions.controller.js';
import { AnswerNotificationsService } from './answer-notifications.service.js';
import { QuestionsMcpTools } from './questions-mcp.tools.js';
import { QuestionsRepository } from './questions.repository.js';
import { QuestionsService } from './questions.service.js';

/** Question batches: site-token API and owner send; its service also serves MCP and the share page (share/). */
@Module({
  imports: [ObservabilityModule, SitesModule, MailModule, FeedbackMcpModule],
  controllers: [QuestionsController, OwnerQuestionsController],
  providers: [QuestionsRepository, QuestionsService, QuestionsMcpTools, AnswerNotificationsService],
  exports: [QuestionsService, AnswerNotificationsService],
})
export class QuestionsModule {}
