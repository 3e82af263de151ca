import { Module } from '@nestjs/common';
import { BillingModule } from '../billing/billing.module.js';
import { ConnectedAppsModule, SecurityActivityModule } from '#libs/identity';
import { TodosModule } from '../todos/todos.module.js';
import { AccountController } from './account.controller.js';
import { AccountRepository } from './account.repository.js';
import { AccountService } from './account.service.js';

@Module({
  imports: [TodosModule, BillingModule, ConnectedAppsModule, SecurityActivityModule],
  controllers: [AccountController],
  providers: [AccountRepository, AccountService],
})
export class AccountModule {}
