import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '#libs/config';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (e.g. RFC 8058 `List-Unsubscribe` and `List-Unsubscribe-Post`). */
  headers?: Record<string, string>;
}

/**
 * Sends mail through SMTP_URL with nodemailer. Without SMTP_URL (development), each
 * message is written to DATA_DIR/outbox/ and only its recipient and subject are logged,
 * so codes and links never reach the log.
 */
@Injectable()
export class MailService implements OnModuleDestroy {
  private readonly logger = new Logger(MailService.name);
  /** Made on the first message: nodemailer is about 6 MB of heap a service holds idle until it sends one. */
  private transporter?: Promise<Transporter>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async send(message: MailMessage): Promise<void> {
    const smtpUrl = this.config.smtpUrl;
    if (smtpUrl) {
      this.transporter ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl));
      await (await this.transporter).sendMail({ from: this.config.mailFrom, ...message });
      this.logger.log({ to: message.to, subject: message.subject }, 'Mail sent');
      return;
    }
    const outbox = join(this.config.dataDir, 'outbox');
    mkdirSync(outbox, { recursive: true, mode: 0o700 });
    const file = join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${Math.random().toString(36).slice(2, 8)}.eml.json`);
    writeFileSync(file, JSON.stringify({ from: this.config.mailFrom, ...message }, null, 2), { mode: 0o600 });
    this.logger.log({ to: message.to, subject: message.subject, file }, 'SMTP_URL not set: mail written to the outbox');
  }

  async onModuleDestroy(): Promise<void> {
    (await this.transporter?.catch(() => undefined))?.close();
  }
}
