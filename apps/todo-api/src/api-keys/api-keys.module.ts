import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '#libs/identity';
import { SecurityActivityModule } from '#libs/identity';
import { ApiAccessModule } from '../api-access/api-access.module.js';
import { ActiveAccessGuard } from './active-access.guard.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';

/** API-key management (JWT, with API access). Authentication by API key itself lives in ../api-access. */
@Module({
  imports: [AccountsCoreModule, ApiAccessModule, SecurityActivityModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysRepository, ApiKeysService, ActiveAccessGuard],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
