import { DynamicModule, Module } from '@nestjs/common';
import type { DestinationStream } from 'pino';
import { AccountsCoreModule, JwtAuthGuard, AuthModule, BreachedPasswordsConfigModule, OAUTH_INTERACTION_PATH_PREFIXES, OAuthModule, SecurityActivityModule, SessionsModule, type BreachedPasswordsConfig } from '#libs/identity';
import { AuthSchemeGuards, CoreModule } from '#libs/common';
import type { AppConfig } from '#libs/config';
import { AccountModule } from './account/account.module.js';
import { AccountPagesModule } from './account-pages/account-pages.module.js';
import { ApiAccessModule } from './api-access/api-access.module.js';
import { API_KEY_HEADER } from './api-access/api-access.schemes.js';
import { ApiKeyAuthGuard } from './api-access/api-key-auth.guard.js';
import { JwtOrApiKeyGuard } from './api-access/jwt-or-api-key.guard.js';
import { ApiKeysModule } from './api-keys/api-keys.module.js';
import { AdminKeyGuard } from './billing/admin-key.guard.js';
import { ADMIN_KEY_HEADER } from './billing/admin-key.schemes.js';
import { BILLING_WEBHOOK_SIGNATURE_HEADER } from './billing/billing-webhook.controller.js';
import type { BillingConfig } from './billing/billing.config.js';
import { BillingConfigModule } from './billing/billing-config.module.js';
import { BillingModule } from './billing/billing.module.js';
import { FEEDBACK_MCP_OAUTH_RESOURCE } from '../../feedback-export/src/mcp/feedback-mcp-oauth-resource.js';
import { McpAuthModule } from './mcp/mcp-auth.module.js';
import { McpModule } from './mcp/mcp.module.js';
import { TODO_MCP_OAUTH_RESOURCE } from './mcp/todo-mcp.resource.js';
import { TodoMcpAuthGuard } from './mcp/todo-mcp-auth.guard.js';
import { TodosModule } from './todos/todos.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

export interface TodoApiOptions {
  config: AppConfig;
  /** todo-api's own settings (loadBillingConfig): the administrator key and Stripe. */
  billing: BillingConfig;
  /** todo-api's breached-password check (loadBreachedPasswordsConfig). */
  breachedPasswords: BreachedPasswordsConfig;
  databaseUrl: string;
  logDestination?: DestinationStream;
}

/** The credential schemes todo-api serves, each checked by its own guard. */
const TODO_API_AUTH_SCHEMES: AuthSchemeGuards = {
  jwt: JwtAuthGuard,
  'api-key': ApiKeyAuthGuard,
  'admin-key': AdminKeyGuard,
  'jwt-or-api-key': JwtOrApiKeyGuard,
  'todo-mcp': TodoMcpAuthGuard,
};

/** Request headers of todo-api's that carry secrets, kept out of its logs. */
const TODO_API_SECRET_HEADERS = [API_KEY_HEADER, ADMIN_KEY_HEADER, BILLING_WEBHOOK_SIGNATURE_HEADER];

@Module({})
export class TodoApiModule {
  static forRoot(options: TodoApiOptions): DynamicModule {
    return {
      module: TodoApiModule,
      imports: [
        CoreModule.forRoot({ config: options.config, databaseUrl: options.databaseUrl, service: 'todo-api', logDestination: options.logDestination, authSchemes: TODO_API_AUTH_SCHEMES, requestLogging: { secretHeaders: TODO_API_SECRET_HEADERS, secretPathPrefixes: OAUTH_INTERACTION_PATH_PREFIXES } }),
        AccountsCoreModule,
        SecurityActivityModule,
        ApiAccessModule,
        AuthModule,
        SessionsModule,
        BillingConfigModule.forRoot(options.billing),
        BillingModule,
        BreachedPasswordsConfigModule.forRoot(options.breachedPasswords),
        ApiKeysModule,
        TodosModule,
        WebhooksModule,
        AccountModule,
        AccountPagesModule,
        McpModule,
        McpAuthModule,
        // The authorization server issues tokens for both services' MCP endpoints: each app declares its own resource (the todo one is the default).
        OAuthModule.forRoot({ resources: [TODO_MCP_OAUTH_RESOURCE, FEEDBACK_MCP_OAUTH_RESOURCE] }),
      ],
    };
  }
}
