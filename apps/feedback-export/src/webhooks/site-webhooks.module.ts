import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { AccountsCoreModule, UsersService } from '#libs/identity';
import { WebhookEngineModule } from '#libs/webhooks';
import { FeedbackMcpModule } from '../mcp/mcp.module.js';
import { SitesModule } from '../sites/sites.module.js';
import { SitesService } from '../sites/sites.service.js';
import { FEEDBACK_WEBHOOK_EVENTS, FEEDBACK_WEBHOOK_OWNER_KIND, MAX_WEBHOOKS_PER_SITE, SITE_WEBHOOK_DISABLED_SUBJECT } from './feedback-webhook-events.js';
import { FeedbackEventsRepository } from './feedback-events.repository.js';
import { FeedbackEventsSweeper } from './feedback-events.sweeper.js';
import { SiteWebhooksController } from './site-webhooks.controller.js';
import { SiteWebhooksMcpTools } from './site-webhooks-mcp.tools.js';
import { SiteWebhooksService } from './site-webhooks.service.js';

/** The event log's upkeep. */
@Module({ providers: [FeedbackEventsRepository, FeedbackEventsSweeper] })
class FeedbackEventLogModule {}

const engine = WebhookEngineModule.forApp({
  imports: [SitesModule, AccountsCoreModule],
  inject: [APP_CONFIG, SitesService, UsersService],
  useFactory: (config: AppConfig, sites: SitesService, users: UsersService) => ({
    ownerKind: FEEDBACK_WEBHOOK_OWNER_KIND,
    ownerNoun: 'site',
    eventCatalogue: FEEDBACK_WEBHOOK_EVENTS,
    allowLoopback: config.webhooksLoopback,
    httpsOnly: config.nodeEnv === 'production',
    maxEndpointsPerOwner: MAX_WEBHOOKS_PER_SITE,
    disableAfterFailingMs: config.webhookDisableAfterMs,
    // An endpoint's owner is a site: its owner's account is mailed, naming the site.
    disabledEndpointMail: {
      subject: SITE_WEBHOOK_DISABLED_SUBJECT,
      recipientOf: async (siteId) => {
        const site = await sites.ownerAndName(siteId);
        const owner = site && (await users.findById(site.ownerId));
        return site && owner ? { email: owner.email, ownerName: `your site ${site.name}` } : undefined;
      },
      reEnableHow: (endpoint) => `PATCH ${config.feedbackPublicBaseUrl}/api/v1/sites/${endpoint.ownerId}/webhooks/${endpoint.id} with {"enabled": true}`,
    },
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
