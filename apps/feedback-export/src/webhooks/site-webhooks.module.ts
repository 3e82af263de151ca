import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { MailModule } from '#libs/mail';
import { WebhookEngineModule } from '#libs/webhooks';
import { FeedbackMcpModule } from '../mcp/mcp.module.js';
import { SitesModule } from '../sites/sites.module.js';
import { FEEDBACK_WEBHOOK_EVENTS, FEEDBACK_WEBHOOK_OWNER_KIND, MAX_WEBHOOKS_PER_SITE } from './feedback-webhook-events.js';
import { FeedbackEventsRepository } from './feedback-events.repository.js';
import { FeedbackEventsSweeper } from './feedback-events.sweeper.js';
import { SiteWebhookOwnerMailService } from './site-webhook-owner-mail.service.js';
import { SiteWebhooksController } from './site-webhooks.controller.js';
import { SiteWebhooksMcpTools } from './site-webhooks-mcp.tools.js';
import { SiteWebhooksService } from './site-webhooks.service.js';

/** The event log's upkeep, and what the engine's options factory injects from feedback-export: the mail to a site's owner whose endpoint was disabled. */
@Module({ imports: [MailModule], providers: [FeedbackEventsRepository, SiteWebhookOwnerMailService, FeedbackEventsSweeper], exports: [SiteWebhookOwnerMailService] })
class FeedbackEventLogModule {}

const engine = WebhookEngineModule.forApp({
  imports: [FeedbackEventLogModule],
  inject: [APP_CONFIG, SiteWebhookOwnerMailService],
  useFactory: (config: AppConfig, ownerMail: SiteWebhookOwnerMailService) => ({
    ownerKind: FEEDBACK_WEBHOOK_OWNER_KIND,
    ownerNoun: 'site',
    eventCatalogue: FEEDBACK_WEBHOOK_EVENTS,
    allowLoopback: config.webhooksLoopback,
    httpsOnly: config.nodeEnv === 'production',
    maxEndpointsPerOwner: MAX_WEBHOOKS_PER_SITE,
    disableAfterFailingMs: config.webhookDisableAfterMs,
    notifyOwnerOfDisabledEndpoint: (endpoint) => ownerMail.endpointDisabled(endpoint),
  }),
});

/** Webhooks for a site's feedback and question-batch events (libs/webhooks with feedback-export's vocabulary), and the event log's upkeep. */
@Module({
  imports: [SitesModule, FeedbackMcpModule, FeedbackEventLogModule, engine],
  controllers: [SiteWebhooksController],
  providers: [SiteWebhooksService, SiteWebhooksMcpTools],
  exports: [engine],
})
export class SiteWebhooksModule {}
