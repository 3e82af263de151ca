import { Module } from '@nestjs/common';
import { QuestionsModule } from '../questions.module.js';
import { ShareAssetsController, ShareController } from './share.controller.js';

/** The recipient's side of a question batch: the share page, its script and its API (share token in the path). */
@Module({
  imports: [QuestionsModule],
  controllers: [ShareController, ShareAssetsController],
})
export class ShareModule {}
