import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '../accounts-core.module.js';
import { SecurityActivityModule } from '../security-activity/security-activity.module.js';
import { SessionsController } from './sessions.controller.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';

@Module({
  imports: [AccountsCoreModule, SecurityActivityModule],
  controllers: [SessionsController],
  providers: [SessionsRepository, SessionsService],
  exports: [SessionsService],
})
export class SessionsModule {}
