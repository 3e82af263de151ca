import { Inject, Injectable, Logger } from '@nestjs/common';
import { canonicalEmailDigest } from '#libs/identity';
import { rateLimitCounterKey, RateLimitStore, rateLimitTrackerOf, trimTrailingSlashes } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { MailService } from '#libs/mail';
import { renderAnswerMail } from './answer-mail.js';
import { QuestionsRepository, type BatchRow } from './questions.repository.js';
import { UnsubscribeTokenCodec } from './unsubscribe-token.js';

/**
 * Daily budgets of "answered" notifications (fixed windows of a day on the shared rate-limit
 * counters, so they hold across replicas): per recipient address (canonical digest, whichever
 * account's batches write to it) and per account (the batches' owner). Over either, the mail
 * is skipped and logged; the recipient's browser is never told. An owner who confirmed their
 * e-mail address has larger ones (`confirmedOwner`): more a day for the account, and more still
 * to that confirmed address itself, which nobody else can be made to receive.
 */
export const ANSWER_MAIL_BUDGETS = {
  perRecipient: { bucket: 'question-mail-recipient', limit: 10, windowSeconds: 86_400 },
  perAccount: { bucket: 'question-mail-account', limit: 50, windowSeconds: 86_400 },
  confirmedOwner: { perAccountLimit: 200, ownAddressLimit: 100 },
} as const;

export const answerMailRecipientKey = (address: string) => rateLimitCounterKey(ANSWER_MAIL_BUDGETS.perRecipient.bucket, rateLimitTrackerOf('email', canonicalEmailDigest(address)));
export const answerMailAccountKey = (ownerId: string) => rateLimitCounterKey(ANSWER_MAIL_BUDGETS.perAccount.bucket, rateLimitTrackerOf('user', ownerId));

/** Where the one-click unsubscribe of a notification lives (GET: a page with a button; POST: RFC 8058 one-click). */
export const UNSUBSCRIBE_PATH = '/unsubscribe/';

type Outcome = 'sent' | 'unsubscribed' | 'over-recipient-budget' | 'over-account-budget' | 'failed';

/**
 * The "answered" notification of a question batch: at most one per batch (the caller holds the
 * claim from QuestionsRepository.submit), to `notifyEmail`, unless that recipient unsubscribed
 * from the site, within the daily budgets; fixed subject, caller text quoted and defanged,
 * RFC 8058 one-click unsubscribe. Never throws: the answers are saved whatever happens here.
 */
@Injectable()
export class AnswerNotificationsService {
  private readonly logger = new Logger(AnswerNotificationsService.name);
  readonly unsubscribeTokens: UnsubscribeTokenCodec;

  constructor(
    private readonly questions: QuestionsRepository,
    private readonly mail: MailService,
    private readonly counters: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.unsubscribeTokens = new UnsubscribeTokenCodec(config.jwtSecret);
  }

  /** Sends the claimed notification; a failure to send gives the claim back (a later submit retries, within the budgets). */
  async answered(batch: BatchRow, claimedAt: Date): Promise<Outcome> {
    const recipientDigest = canonicalEmailDigest(batch.notifyEmail);
    const log = { batchId: batch.id, siteId: batch.siteId, ownerId: batch.ownerId };
    try {
      if (await this.questions.isUnsubscribed(batch.siteId, recipientDigest)) {
        this.logger.log({ ...log, outcome: 'unsubscribed' }, 'Answer notification skipped: the recipient unsubscribed from this site');
        return 'unsubscribed';
      }
      const overBudget = await this.spendBudgets(batch, recipientDigest);
      if (overBudget) {
        this.logger.warn({ ...log, outcome: overBudget }, 'Answer notification skipped: over the daily mail budget');
        return overBudget;
      }
      await this.mail.send({ to: batch.notifyEmail, ...(await this.render(batch, recipientDigest)) });
      return 'sent';
    } catch (error) {
      this.logger.error({ ...log, err: { message: (error as Error)?.message } }, 'Answer notification could not be sent');
      await this.questions.releaseNotification(batch.id, claimedAt).catch(() => undefined);
      return 'failed';
    }
  }

  /** Counts the mail against the recipient's, then the account's budget; the first one over is the answer (nothing counted past it). */
  private async spendBudgets(batch: BatchRow, recipientDigest: string): Promise<Outcome | undefined> {
    const { perRecipient, perAccount, confirmedOwner } = ANSWER_MAIL_BUDGETS;
    const owner = await this.questions.ownerAddress(batch.ownerId);
    const confirmed = owner?.confirmed === true;
    const toOwnAddress = confirmed && canonicalEmailDigest(owner.email) === recipientDigest;
    const recipientLimit = toOwnAddress ? confirmedOwner.ownAddressLimit : perRecipient.limit;
    const accountLimit = confirmed ? confirmedOwner.perAccountLimit : perAccount.limit;
    const recipientKey = answerMailRecipientKey(batch.notifyEmail);
    if ((await this.counters.hit(recipientKey, perRecipient.windowSeconds * 1000)).hits > recipientLimit) return 'over-recipient-budget';
    if ((await this.counters.hit(answerMailAccountKey(batch.ownerId), perAccount.windowSeconds * 1000)).hits > accountLimit) {
      // The recipient's budget is not spent on a mail the account's budget stopped.
      await this.counters.release(recipientKey);
      return 'over-account-budget';
    }
    return undefined;
  }

  private async render(batch: BatchRow, recipientDigest: string) {
    const base = trimTrailingSlashes(this.config.feedbackPublicBaseUrl);
    const questions = await this.questions.questionsWithAnswers(batch.id);
    const unsubscribeUrl = `${base}${UNSUBSCRIBE_PATH}${this.unsubscribeTokens.seal({ siteId: batch.siteId, recipientDigest })}`;
    const content = renderAnswerMail({
      serviceHost: new URL(base).host,
      batchTitle: batch.title,
      siteName: (await this.questions.siteName(batch.siteId)) ?? '',
      answered: questions.filter((q) => q.answerText !== null).length,
      questions: questions.length,
      dashboardUrl: `${base}/dashboard`,
      unsubscribeUrl,
    });
    return { ...content, headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } };
  }

  // ---- the recipient's unsubscribe (token from the mail) ----

  /** The site an unsubscribe token names, for the confirmation page; undefined for a bad token or a deleted site. */
  async unsubscribeTarget(token: string): Promise<{ siteName: string } | undefined> {
    const target = this.unsubscribeTokens.open(token);
    const siteName = target && (await this.questions.siteName(target.siteId));
    return siteName === undefined ? undefined : { siteName };
  }

  /** Unsubscribes the token's recipient from the site's notifications (idempotent); false for a bad token or a deleted site. */
  async unsubscribe(token: string): Promise<{ siteName: string } | undefined> {
    const target = this.unsubscribeTokens.open(token);
    if (!target) return undefined;
    const siteName = await this.questions.unsubscribe(target.siteId, target.recipientDigest);
    if (siteName === undefined) return undefined;
    this.logger.log({ siteId: target.siteId }, 'A recipient unsubscribed from answer notifications');
    return { siteName };
  }
}
