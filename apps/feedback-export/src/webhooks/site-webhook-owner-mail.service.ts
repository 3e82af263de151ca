import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { MailService } from '#libs/mail';
import type { DisabledWebhookEndpoint } from '#libs/webhooks';
import { FeedbackEventsRepository } from './feedback-events.repository.js';

export const SITE_WEBHOOK_DISABLED_SUBJECT = "Your site's webhook endpoint was disabled";

/** Mails a site's owner that the webhook engine disabled one of the site's endpoints for failing too long (once per disablement). */
@Injectable()
export class SiteWebhookOwnerMailService {
  private readonly logger = new Logger(SiteWebhookOwnerMailService.name);

  constructor(
    private readonly events: FeedbackEventsRepository,
    private readonly mail: MailService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async endpointDisabled(endpoint: DisabledWebhookEndpoint): Promise<void> {
    const owner = await this.events.ownerOfSite(endpoint.ownerId);
    if (owner === undefined) {
      this.logger.warn({ endpointId: endpoint.id }, 'Disabled webhook endpoint has no site to mail the owner of');
      return;
    }
    const name = endpoint.description ? `${endpoint.url} (${endpoint.description})` : endpoint.url;
    await this.mail.send({
      to: owner.email,
      subject: SITE_WEBHOOK_DISABLED_SUBJECT,
      text:
        `The webhook endpoint ${name} of your site ${owner.siteName} has been disabled: ${endpoint.reason} ` +
        `(failing since ${endpoint.failingSince.toISOString()}, ${endpoint.failureStreak} failed attempts in a row).\n\n` +
        'Its waiting deliveries are kept and are sent again once you re-enable it: fix the receiver, then ' +
        `PATCH ${this.config.feedbackPublicBaseUrl}/api/v1/sites/${endpoint.ownerId}/webhooks/${endpoint.id} with {"enabled": true}.\n`,
    });
  }
}
