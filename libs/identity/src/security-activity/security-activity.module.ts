import { Module } from '@nestjs/common';
import { SecurityActivityController } from './security-activity.controller.js';
import { SecurityActivityRepository } from './security-activity.repository.js';
import { SecurityActivityService } from './security-activity.service.js';
import { SecurityActivitySweeper } from './security-activity.sweeper.js';

/**
 * The security activity log. The features whose changes it reports (auth, sessions, API keys, OAuth,
 * billing) import this module (it imports none of them).
 */
@Module({
  controllers: [SecurityActivityController],
  providers: [SecurityActivityRepository, SecurityActivityService, SecurityActivitySweeper],
  exports: [SecurityActivityService],
})
export class SecurityActivityModule {}
