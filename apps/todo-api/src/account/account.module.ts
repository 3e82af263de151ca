import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { BillingModule } from '../billing/billing.module.js';
import { AccountsCoreModule, ConnectedAppsModule, PasskeysModule, SecondFactorModule, SecurityActivityModule } from '#libs/identity';
import { TodosModule } from '../todos/todos.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { AccountController } from './account.controller.js';
import { AccountRepository } from './account.repository.js';
import { AccountService } from './account.service.js';

@Module({
  imports: [AccountsCoreModule, TodosModule, ApiKeysModule, BillingModule, ConnectedAppsModule, SecurityActivityModule, SecondFactorModule, PasskeysModule, WebhooksModule],
  controllers: [AccountController],
  providers: [AccountRepository, AccountService],
})
export class AccountModule {}
