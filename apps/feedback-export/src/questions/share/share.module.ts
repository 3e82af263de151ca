import { Module } from '@nestjs/common';
import { QuestionsModule } from '../questions.module.js';
import { ShareAssetsController, ShareController } from './share.controller.js';
import { UnsubscribeController } from './unsubscribe.controller.js';

/** The recipient's side of a question batch: the share page, its script and its API (share token in the path), and the notification's unsubscribe. */
@Module({
  imports: [QuestionsModule],
  controllers: [ShareController, ShareAssetsController, UnsubscribeController],
})
export class ShareModule {}
