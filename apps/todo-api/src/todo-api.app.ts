import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHttpApp, displayPath, loadSettingsOrExit, type AppSecurity, type ServiceStarter } from '#libs/common';
import { API_ACCESS_SECURITY } from './api-access/api-access.schemes.js';
import { ADMIN_KEY_SECURITY } from './billing/admin-key.schemes.js';
import { BILLING_WEBHOOK_PATH } from './billing/billing-webhook.controller.js';
import { loadBillingConfig } from './billing/billing.config.js';
import { loadBreachedPasswordsConfig, rangeBaseUrlOf } from '#libs/identity';
import { TODO_MCP_SECURITY } from './mcp/todo-mcp.schemes.js';
import { TODO_EVENTS_PATH } from './todos/todo-events.controller.js';
import { TodoApiModule, type TodoApiOptions } from './todo-api.module.js';

/** Optional features left unconfigured, said once at start. */
function unsetFeatures({ config, billing, breachedPasswords }: Pick<TodoApiOptions, 'config' | 'billing' | 'breachedPasswords'>): string[] {
  return [
    ...(rangeBaseUrlOf(breachedPasswords, config.nodeEnv) ? [] : ['BREACHED_PASSWORDS_RANGE_URL is unset or off: new passwords are not checked against known breaches']),
    ...(billing.adminApiKey ? [] : ['ADMIN_API_KEY is unset: the admin routes (lifetime beta grants) answer 401']),
    ...(billing.stripe ? [] : ['Stripe is not configured (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_ID): billing answers 503']),
    ...(config.smtpUrl ? [] : [`SMTP_URL is unset: password-reset mail goes to the log and ${displayPath(join(config.dataDir, 'outbox'))}/`]),
  ];
}

/** todo-api's own schemes in the OpenAPI document: API keys, the administrator key, the MCP endpoint. */
const TODO_API_SECURITY: AppSecurity = {
  schemes: { ...API_ACCESS_SECURITY.schemes, ...ADMIN_KEY_SECURITY.schemes, ...TODO_MCP_SECURITY.schemes },
  requirements: { ...API_ACCESS_SECURITY.requirements, ...ADMIN_KEY_SECURITY.requirements, ...TODO_MCP_SECURITY.requirements },
};

export function createTodoApiApp(options: TodoApiOptions): Promise<NestExpressApplication> {
  return createHttpApp(TodoApiModule.forRoot(options), options.config, {
    publicBaseUrl: options.config.publicBaseUrl,
    openApi: {
      title: 'Todo API',
      description:
        'Accounts, sessions, billing, API keys, todos, account export and deletion, and an MCP endpoint. ' +
        'Every success is `{success: true, data}`; every error is `{success: false, error: {code, message, details?}}`.',
      tags: [
        { name: 'Auth', description: 'Signup, sign-in, token refresh, sign-out and password flows' },
        { name: 'Sessions', description: 'The signed-in sessions of the account (one per sign-in)' },
        { name: 'Billing', description: 'The API-access subscription: checkout, portal, cancel and reactivate, and the payment webhook' },
        { name: 'Billing administration', description: 'Lifetime beta access, granted and revoked with the administrator key' },
        { name: 'API keys', description: 'Keys for the todo routes and the MCP endpoint (need API access)' },
        { name: 'Todos', description: 'The account’s todos, read and written with an API key, and their realtime event stream' },
        { name: 'Webhooks', description: 'Signed (Standard Webhooks), retried deliveries of your todo events to your own endpoints, and their delivery log' },
        { name: 'Account', description: 'Export every record of the account, or delete it' },
        { name: 'MCP', description: 'The todos for AI agents: JSON-RPC 2.0 over stateless streamable HTTP' },
      ],
      security: TODO_API_SECURITY,
    },
    index: { service: 'todo-api', pages: { 'Account pages': '/account' }, unsetFeatures: unsetFeatures(options) },
    rawBodyPaths: [BILLING_WEBHOOK_PATH],
    longLivedPaths: [TODO_EVENTS_PATH],
  });
}

/**
 * todo-api as runServices starts it, alone (`npm run start:todo`, its container) or beside
 * feedback-export (`npm start`). Its own settings are read here, at start, before any app is built.
 */
export function todoApiService(): ServiceStarter {
  const billing = loadSettingsOrExit(() => loadBillingConfig(), 'todo-api');
  const breachedPasswords = loadSettingsOrExit(() => loadBreachedPasswordsConfig(), 'todo-api');
  return { name: 'todo-api', port: (config) => config.todoApiPort, portVariable: 'TODO_API_PORT', create: (config, databaseUrl) => createTodoApiApp({ config, billing, breachedPasswords, databaseUrl }) };
}
