import { Inject, Injectable, Logger } from '@nestjs/common';
import { MailService } from '#libs/mail';
import { WEBHOOK_ENGINE_OPTIONS, type DisabledWebhookEndpoint, type WebhookEngineOptions } from './webhook-engine.options.js';

/**
 * Mails the owner of an endpoint the engine disabled for failing too long: what happened and how to undo it, in the
 * app's words (WebhookEngineOptions.disabledEndpointMail). Called once per disablement, so at most one mail.
 */
@Injectable()
export class WebhookDisabledMailService {
  private readonly logger = new Logger(WebhookDisabledMailService.name);

  constructor(
    @Inject(WEBHOOK_ENGINE_OPTIONS) private readonly options: WebhookEngineOptions,
    private readonly mail: MailService,
  ) {}

  async endpointDisabled(endpoint: DisabledWebhookEndpoint): Promise<void> {
    const words = this.options.disabledEndpointMail;
    if (!words) return;
    const recipient = await words.recipientOf(endpoint.ownerId);
    if (recipient === undefined) {
      this.logger.warn({ endpointId: endpoint.id, ownerKind: this.options.ownerKind }, 'Disabled webhook endpoint has no owner left to mail');
      return;
    }
    const name = endpoint.description ? `${endpoint.url} (${endpoint.description})` : endpoint.url;
    const which = recipient.ownerName ? `The webhook endpoint ${name} of ${recipient.ownerName}` : `Your webhook endpoint ${name}`;
    await this.mail.send({
      to: recipient.email,
      subject: words.subject,
      text:
        `${which} has been disabled: ${endpoint.reason} ` +
        `(failing since ${endpoint.failingSince.toISOString()}, ${endpoint.failureStreak} failed attempts in a row).\n\n` +
        `Its waiting deliveries are kept and are sent again once you re-enable it: fix the receiver, then ${words.reEnableHow(endpoint)}.\n`,
    });
  }
}
