import { Global, Module } from '@nestjs/common';
import { SecurityActivityController } from './security-activity.controller.js';
import { SecurityActivityRepository } from './security-activity.repository.js';
import { SecurityActivityService } from './security-activity.service.js';
import { SecurityActivitySweeper } from './security-activity.sweeper.js';

/**
 * The security activity log. Global: the features whose changes it reports (auth, sessions, API keys, OAuth,
 * billing) inject SecurityActivityService without importing this module (it imports none of them).
 */
@Global()
@Module({
  controllers: [SecurityActivityController],
  providers: [SecurityActivityRepository, SecurityActivityService, SecurityActivitySweeper],
  exports: [SecurityActivityService],
})
export class SecurityActivityModule {}
