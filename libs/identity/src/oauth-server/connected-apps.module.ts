import { Module } from '@nestjs/common';
import { SecurityActivityModule } from '../security-activity/security-activity.module.js';
import { ConnectedAppsController } from './connected-apps.controller.js';
import { ConnectedAppsService } from './connected-apps.service.js';
import { OAuthRecordsRepository } from './oauth-records.repository.js';

/** The apps an account allowed through OAuth: its list and disconnect routes, and ConnectedAppsService for the account export. */
@Module({
  imports: [SecurityActivityModule],
  controllers: [ConnectedAppsController],
  providers: [ConnectedAppsService, OAuthRecordsRepository],
  exports: [ConnectedAppsService],
})
export class ConnectedAppsModule {}
