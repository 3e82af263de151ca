import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { WebhookEngineModule } from '#libs/webhooks';
import { ApiAccessModule } from '../api-access/api-access.module.js';
import { McpModule } from '../mcp/mcp.module.js';
import { MAX_WEBHOOKS_PER_ACCOUNT, TODO_WEBHOOK_EVENTS, TODO_WEBHOOK_OWNER_KIND } from './todo-webhook-events.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksMcpTools } from './webhooks-mcp.tools.js';

const engine = WebhookEngineModule.forApp({
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => ({
    ownerKind: TODO_WEBHOOK_OWNER_KIND,
    eventCatalogue: TODO_WEBHOOK_EVENTS,
    allowLoopback: config.webhooksLoopback,
    httpsOnly: config.nodeEnv === 'production',
    maxEndpointsPerOwner: MAX_WEBHOOKS_PER_ACCOUNT,
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
