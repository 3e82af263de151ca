import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { AccountsCoreModule, UsersService } from '#libs/identity';
import { WebhookEngineModule } from '#libs/webhooks';
import { ApiAccessModule } from '../api-access/api-access.module.js';
import { McpModule } from '../mcp/mcp.module.js';
import { MAX_WEBHOOKS_PER_ACCOUNT, TODO_WEBHOOK_EVENTS, TODO_WEBHOOK_OWNER_KIND, WEBHOOK_DISABLED_SUBJECT } from './todo-webhook-events.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksMcpTools } from './webhooks-mcp.tools.js';

const engine = WebhookEngineModule.forApp({
  imports: [AccountsCoreModule],
  inject: [APP_CONFIG, UsersService],
  useFactory: (config: AppConfig, users: UsersService) => ({
    ownerKind: TODO_WEBHOOK_OWNER_KIND,
    eventCatalogue: TODO_WEBHOOK_EVENTS,
    allowLoopback: config.webhooksLoopback,
    httpsOnly: config.nodeEnv === 'production',
    maxEndpointsPerOwner: MAX_WEBHOOKS_PER_ACCOUNT,
    disableAfterFailingMs: config.webhookDisableAfterMs,
    attemptTimeoutMs: config.webhookAttemptTimeoutMs,
    // An endpoint's owner is the account: mailed at its address.
    disabledEndpointMail: {
      subject: WEBHOOK_DISABLED_SUBJECT,
      recipientOf: async (userId) => {
        const user = await users.findById(userId);
        return user ? { email: user.email } : undefined;
      },
      reEnableHow: (endpoint) => `PATCH ${config.publicBaseUrl}/api/v1/webhooks/${endpoint.id} with {"enabled": true} (or switch it on in the dashboard)`,
    },
  }),
});

/** Webhooks for todo events (libs/webhooks with todo-api's vocabulary): an account's endpoints, their deliveries. */
@Module({
  imports: [ApiAccessModule, McpModule, engine],
  controllers: [WebhooksController],
  providers: [WebhooksMcpTools],
  exports: [engine],
})
export class WebhooksModule {}
