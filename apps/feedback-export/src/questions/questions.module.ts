import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailModule } from '#libs/mail';
import { FeedbackMcpModule } from '../mcp/mcp.module.js';
import { FaviconController, PageAssetsController, ShareController } from '../share/share.controller.js';
import { SitesModule } from '../sites/sites.module.js';
import { OwnerQuestionsController, QuestionsController } from './questions.controller.js';
import { BatchAnswerEntity, BatchQuestionEntity, QuestionBatchEntity } from './question-batch.entity.js';
import { QuestionsMcpTools } from './questions-mcp.tools.js';
import { QuestionsRepository } from './questions.repository.js';
import { QuestionsService } from './questions.service.js';

/** Question batches: site-token API, owner send, and the recipient's share page; its service also serves MCP. */
@Module({
  imports: [TypeOrmModule.forFeature([QuestionBatchEntity, BatchQuestionEntity, BatchAnswerEntity]), SitesModule, MailModule, FeedbackMcpModule],
  controllers: [QuestionsController, OwnerQuestionsController, ShareController, PageAssetsController, FaviconController],
  providers: [QuestionsRepository, QuestionsService, QuestionsMcpTools],
  exports: [QuestionsService],
})
export class QuestionsModule {}
