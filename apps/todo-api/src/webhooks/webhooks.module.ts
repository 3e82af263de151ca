import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { MailModule } from '#libs/mail';
import { AccountsCoreModule } from '#libs/identity';
import { WebhookEngineModule } from '#libs/webhooks';
import { ApiAccessModule } from '../api-access/api-access.module.js';
import { McpModule } from '../mcp/mcp.module.js';
import { MAX_WEBHOOKS_PER_ACCOUNT, TODO_WEBHOOK_EVENTS, TODO_WEBHOOK_OWNER_KIND } from './todo-webhook-events.js';
import { WebhookOwnerMailService } from './webhook-owner-mail.service.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksMcpTools } from './webhooks-mcp.tools.js';

/** What the engine's options factory injects from todo-api: the mail to an account whose endpoint was disabled. */
@Module({ imports: [MailModule, AccountsCoreModule], providers: [WebhookOwnerMailService], exports: [WebhookOwnerMailService] })
class WebhookOwnerMailModule {}

const engine = WebhookEngineModule.forApp({
  imports: [WebhookOwnerMailModule],
  inject: [APP_CONFIG, WebhookOwnerMailService],
  useFactory: (config: AppConfig, ownerMail: WebhookOwnerMailService) => ({
    ownerKind: TODO_WEBHOOK_OWNER_KIND,
    eventCatalogue: TODO_WEBHOOK_EVENTS,
    allowLoopback: config.webhooksLoopback,
    httpsOnly: config.nodeEnv === 'production',
    maxEndpointsPerOwner: MAX_WEBHOOKS_PER_ACCOUNT,
    disableAfterFailingMs: config.webhookDisableAfterMs,
    attemptTimeoutMs: config.webhookAttemptTimeoutMs,
    notifyOwnerOfDisabledEndpoint: (endpoint) => ownerMail.endpointDisabled(endpoint),
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
