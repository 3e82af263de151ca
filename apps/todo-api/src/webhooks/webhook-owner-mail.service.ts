import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { UsersService } from '#libs/identity';
import { MailService } from '#libs/mail';
import type { DisabledWebhookEndpoint } from '#libs/webhooks';

export const WEBHOOK_DISABLED_SUBJECT = 'Your webhook endpoint was disabled';

/** Mails an account that the webhook engine disabled one of its endpoints for failing too long (once per disablement). */
@Injectable()
export class WebhookOwnerMailService {
  private readonly logger = new Logger(WebhookOwnerMailService.name);

  constructor(
    private readonly users: UsersService,
    private readonly mail: MailService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async endpointDisabled(endpoint: DisabledWebhookEndpoint): Promise<void> {
    const to = (await this.users.findById(endpoint.ownerId))?.email;
    if (to === undefined) {
      this.logger.warn({ endpointId: endpoint.id }, 'Disabled webhook endpoint has no account to mail');
      return;
    }
    const name = endpoint.description ? `${endpoint.url} (${endpoint.description})` : endpoint.url;
    await this.mail.send({
      to,
      subject: WEBHOOK_DISABLED_SUBJECT,
      text:
        `Your webhook endpoint ${name} has been disabled: ${endpoint.reason} ` +
        `(failing since ${endpoint.failingSince.toISOString()}, ${endpoint.failureStreak} failed attempts in a row).\n\n` +
        'Its waiting deliveries are kept and are sent again once you re-enable it: fix the receiver, then ' +
        `PATCH ${this.config.publicBaseUrl}/api/v1/webhooks/${endpoint.id} with {"enabled": true} (or switch it on in the dashboard).\n`,
    });
  }
}
