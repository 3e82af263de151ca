import { Module } from '@nestjs/common';
import { AccountsCoreModule } from '#libs/identity';
import { ApiAccessService } from './api-access.service.js';
import { ApiKeyAccessRepository } from './api-key-access.repository.js';
import { ApiKeyAuthGuard } from './api-key-auth.guard.js';
import { JwtOrApiKeyGuard } from './jwt-or-api-key.guard.js';

/**
 * Paid API access, todo-api's alone: the API-key scheme ('api-key'), the realtime stream's
 * 'jwt-or-api-key' and the access rule behind both (subscription-access.ts). The features that use
 * them (the todo MCP guard, the stream's re-check, API-key management) import this module.
 */
@Module({
  imports: [AccountsCoreModule],
  providers: [ApiKeyAccessRepository, ApiAccessService, ApiKeyAuthGuard, JwtOrApiKeyGuard],
  exports: [ApiAccessService, ApiKeyAuthGuard, JwtOrApiKeyGuard],
})
export class ApiAccessModule {}
