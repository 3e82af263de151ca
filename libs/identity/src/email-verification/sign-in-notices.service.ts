import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { BackgroundWork, rateLimitCounterKey, RateLimitStore, rateLimitTrackerOf, trimTrailingSlashes } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { MailService } from '#libs/mail';
import { SessionsService, type ClientInfo } from '../sessions/sessions.service.js';

/** At most this many "new sign-in" mails per account a day (over it: skipped and logged). */
const NEW_SIGN_IN_MAILS = { bucket: 'new-sign-in-mail', limit: 10, windowSeconds: 86_400 } as const;

export const NEW_SIGN_IN_SUBJECT = 'New sign-in to your account';

/**
 * "New sign-in from a new device": after a sign-in whose User-Agent no other session of the account had (signup's
 * included), the account's address gets a notice. In the background, after the answer: the sign-in's answer and timing
 * stay the published ones. The User-Agent is the caller's text, so the mail does not quote it (only the time and IP).
 */
@Injectable()
export class SignInNoticesService implements OnModuleDestroy {
  private readonly logger = new Logger(SignInNoticesService.name);
  private readonly pending = new BackgroundWork();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: SessionsService,
    private readonly mail: MailService,
    private readonly counters: RateLimitStore,
  ) {}

  afterSignIn(user: { id: string; email: string }, sessionId: string, client: ClientInfo): void {
    const run = this.notify(user, sessionId, client).catch((error: Error) => this.logger.warn({ userId: user.id, err: error.message }, 'New sign-in notice not sent'));
    this.pending.track(run);
  }

  async onModuleDestroy(): Promise<void> {
    await this.pending.settled();
  }

  private async notify(user: { id: string; email: string }, sessionId: string, client: ClientInfo): Promise<void> {
    if (await this.sessions.knownDevice(user.id, sessionId, client)) return;
    const key = rateLimitCounterKey(NEW_SIGN_IN_MAILS.bucket, rateLimitTrackerOf('user', user.id));
    if ((await this.counters.hit(key, NEW_SIGN_IN_MAILS.windowSeconds * 1000)).hits > NEW_SIGN_IN_MAILS.limit) {
      this.logger.warn({ userId: user.id }, 'New sign-in notice skipped: the account’s daily budget is spent');
      return;
    }
    await this.mail.send({
      to: user.email,
      subject: NEW_SIGN_IN_SUBJECT,
      text:
        `Your account was signed in to from a device it had not used before, at ${new Date().toISOString()}` +
        `${client.ipAddress ? ` from the address ${client.ipAddress}` : ''}.\n\n` +
        'If this was you, there is nothing to do. If not, change your password and sign that session out ' +
        `(session ${sessionId}) on your account page:\n${trimTrailingSlashes(this.config.publicBaseUrl)}/account#sessions\n`,
    });
  }
}
