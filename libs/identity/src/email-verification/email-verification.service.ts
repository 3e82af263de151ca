import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AppException, BackgroundWork, ErrorCode, rateLimitCounterKey, RateLimitStore, rateLimitTrackerOf, trimTrailingSlashes, uniqueViolationConstraint, validationException } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { MailService } from '#libs/mail';
import { canonicalEmail, canonicalEmailDigest } from '../accounts/canonical-email.js';
import { requireConfirmedEmail } from '../accounts/confirmed-email.js';
import { CredentialRevocations } from '../accounts/credential-revocations.service.js';
import { PasswordHasher } from '../accounts/password-hasher.service.js';
import { AccountOAuthGrants } from '../oauth-resource/account-oauth-grants.service.js';
import { SecurityActivityService } from '../security-activity/security-activity.service.js';
import { SessionsService, type ClientInfo } from '../sessions/sessions.service.js';
import { toPasswordChangedDto, type MessageDto, type PasswordChangedDto } from '../sign-in/dto/auth-responses.dto.js';
import type { ChangeEmailDto } from './dto/email-verification.dto.js';
import { EmailTokensRepository, type EmailTokenPurpose } from './email-tokens.repository.js';
import { UsersService } from '../accounts/users.service.js';

/** How long each mailed token works. */
const EMAIL_TOKEN_TTL_SECONDS: Record<EmailTokenPurpose, number> = {
  verify: 24 * 3600,
  change: 24 * 3600,
  revert: 7 * 24 * 3600,
};

/**
 * Mail to an address the caller typed (a new address) is a relay risk: at most this many per day per recipient and
 * per account; over them the mail is skipped and logged, the answer stays the same (CONTRIBUTING, mail to a chosen address).
 */
const EMAIL_CHANGE_MAIL_BUDGETS = {
  perRecipient: { bucket: 'email-change-mail-recipient', limit: 3, windowSeconds: 86_400 },
  perAccount: { bucket: 'email-change-mail-account', limit: 10, windowSeconds: 86_400 },
} as const;

export const MAIL_SUBJECTS = {
  verify: 'Confirm your e-mail address',
  change: 'Confirm your new e-mail address',
  changed: 'Your e-mail address was changed',
} as const;

/**
 * The account page a verification mail links to (todo-api serves it). The code rides in the URL's fragment, which the
 * browser never sends: it stays out of every server's log and Referer; the page posts it to /api/v1/auth/verify-email
 * (`#token=`), or, for the mail to a new address, to /api/v1/account/email/confirm (`#change=`), or, for the notice to
 * the old address, to /api/v1/account/email/revert (`#revert=`).
 */
export const VERIFY_EMAIL_PAGE_PATH = '/account/verify-email';

const CHANGE_REQUESTED_MESSAGE = 'If the address can be used, a confirmation code has been sent to it; it is valid for 24 hours';
const RESEND_MESSAGE = 'Unless the address is already confirmed, a new confirmation code has been sent to it; it is valid for 24 hours';

function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The one answer to every token that does not work: unknown, expired, used, replaced, or of another kind. */
function invalidToken(): AppException {
  return new AppException(ErrorCode.INVALID_EMAIL_TOKEN, 'The code is invalid, expired or already used');
}

/**
 * E-mail verification and change of e-mail. Signup mails a verification code (`afterSignup`); using it sets
 * `email_confirmed`. A change is asked for with the current password and confirmed with the code mailed to the new
 * address; the old address then gets a notice with a code that puts it back for 7 days (and signs every session out).
 * Nothing here changes how the published routes answer an unverified account. Mails are sent after the answer (as the
 * password reset does), so neither the body nor the timing of a change request tells whether the address is taken.
 */
@Injectable()
export class EmailVerificationService implements OnModuleDestroy {
  private readonly logger = new Logger(EmailVerificationService.name);
  private readonly pending = new BackgroundWork();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: EmailTokensRepository,
    private readonly users: UsersService,
    private readonly mail: MailService,
    private readonly hasher: PasswordHasher,
    private readonly counters: RateLimitStore,
    private readonly sessions: SessionsService,
    private readonly oauthGrants: AccountOAuthGrants,
    private readonly revocations: CredentialRevocations,
    private readonly activity: SecurityActivityService,
  ) {}

  /** After a signup has committed: mails the new account its verification code (in the background, never failing the signup). */
  afterSignup(userId: string, email: string): void {
    this.inBackground(() => this.sendVerification(userId, email), 'Verification mail could not be delivered');
  }

  async resend(userId: string): Promise<MessageDto> {
    const user = await this.users.findById(userId);
    if (!user) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    if (user.emailConfirmed !== 1) this.inBackground(() => this.sendVerification(user.id, user.email), 'Verification mail could not be delivered');
    return { message: RESEND_MESSAGE };
  }

  async verify(token: string, client: ClientInfo): Promise<MessageDto> {
    await this.repository.transaction(async (tx) => {
      const used = await this.repository.useToken(tx, 'verify', hashToken(token));
      // A code for an address the account no longer has proves nothing about its address now.
      if (!used || !(await this.repository.confirmAddress(tx, used.userId, used.emailCanonical))) throw invalidToken();
      await this.activity.record(tx, used.userId, 'email_verified', { client });
    });
    return { message: 'E-mail address confirmed' };
  }

  async requestChange(userId: string, dto: ChangeEmailDto, client: ClientInfo): Promise<MessageDto> {
    const user = await this.users.findById(userId);
    if (!user) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    if (!(await this.hasher.verify(dto.currentPassword, user.passwordHash))) throw new AppException(ErrorCode.INVALID_CREDENTIALS, 'The current password is wrong');
    requireConfirmedEmail(user);
    const email = dto.email.trim();
    if (canonicalEmail(email) === user.emailCanonical) {
      throw validationException([{ field: 'email', messages: ['email is already the account’s address'] }], 'email is already the account’s address');
    }
    await this.activity.record(undefined, userId, 'email_change_requested', { client });
    this.inBackground(() => this.sendChangeCode(userId, email), 'E-mail change code could not be delivered');
    return { message: CHANGE_REQUESTED_MESSAGE };
  }

  async confirmChange(token: string, client: ClientInfo): Promise<MessageDto> {
    const { previous, current } = await this.translateTaken(() =>
      this.repository.transaction(async (tx) => {
        const used = await this.repository.useToken(tx, 'change', hashToken(token));
        if (!used) throw invalidToken();
        const previousEmail = await this.repository.lockAddress(tx, used.userId);
        if (previousEmail === undefined) throw invalidToken();
        await this.repository.setAddress(tx, used.userId, used.email);
        const revertToken = newToken();
        await this.repository.replaceToken(tx, used.userId, 'revert', hashToken(revertToken), previousEmail, EMAIL_TOKEN_TTL_SECONDS.revert);
        await this.activity.record(tx, used.userId, 'email_changed', { client });
        return { previous: { email: previousEmail, revertToken }, current: used.email };
      }),
    );
    this.inBackground(
      () =>
        this.mail.send({
          to: previous.email,
          subject: MAIL_SUBJECTS.changed,
          text:
            `The e-mail address of your account was changed to ${current}.\n\n` +
            `If you did not do this, put your address back with this code within 7 days:\n\n${previous.revertToken}\n\n` +
            `Open this link to put it back:\n${trimTrailingSlashes(this.config.publicBaseUrl)}${VERIFY_EMAIL_PAGE_PATH}#revert=${previous.revertToken}\n\n` +
            `(or POST ${this.config.publicBaseUrl}/api/v1/account/email/revert with {"token": "<the code>"}). Every session is then ` +
            'signed out; reset your password afterwards, since whoever made the change knew it.\n',
        }),
      'E-mail change notice could not be delivered',
    );
    return { message: 'E-mail address changed' };
  }

  async revert(token: string, client: ClientInfo): Promise<PasswordChangedDto> {
    const { userId, disconnected } = await this.translateTaken(() =>
      this.repository.transaction(async (tx) => {
        const used = await this.repository.useToken(tx, 'revert', hashToken(token));
        if (!used) throw invalidToken();
        if ((await this.repository.lockAddress(tx, used.userId)) === undefined) throw invalidToken();
        await this.repository.setAddress(tx, used.userId, used.email);
        await this.repository.discardTokens(tx, used.userId, ['change', 'revert']);
        await this.sessions.revokeAll(tx, used.userId);
        const apps = await this.oauthGrants.revokeAll(tx, used.userId);
        await this.activity.record(tx, used.userId, 'email_reverted', { client, details: { disconnectedApps: apps.length } });
        return { userId: used.userId, disconnected: apps };
      }),
    );
    await this.revocations.announce(userId);
    return toPasswordChangedDto('E-mail address restored; every session has been signed out: reset your password if someone else changed it', disconnected);
  }

  async onModuleDestroy(): Promise<void> {
    await this.pending.settled();
  }

  private async sendVerification(userId: string, email: string): Promise<void> {
    const token = newToken();
    await this.repository.replaceToken(undefined, userId, 'verify', hashToken(token), email, EMAIL_TOKEN_TTL_SECONDS.verify);
    await this.mail.send({
      to: email,
      subject: MAIL_SUBJECTS.verify,
      text:
        `Confirm that this address is yours with this code (valid for 24 hours, once):\n\n${token}\n\n` +
        `Open this link to confirm it:\n${trimTrailingSlashes(this.config.publicBaseUrl)}${VERIFY_EMAIL_PAGE_PATH}#token=${token}\n\n` +
        `(or POST ${this.config.publicBaseUrl}/api/v1/auth/verify-email with {"token": "<the code>"}). If you did not sign up, ignore this e-mail.\n`,
    });
  }

  /** The code for a new address, unless another account has it (then nothing is sent) or the mail budgets are spent. */
  private async sendChangeCode(userId: string, email: string): Promise<void> {
    if (await this.repository.emailInUse(email)) return;
    const { perRecipient, perAccount } = EMAIL_CHANGE_MAIL_BUDGETS;
    const recipientKey = rateLimitCounterKey(perRecipient.bucket, rateLimitTrackerOf('email', canonicalEmailDigest(email)));
    if ((await this.counters.hit(recipientKey, perRecipient.windowSeconds * 1000)).hits > perRecipient.limit) {
      this.logger.warn({ userId }, 'E-mail change code skipped: the recipient’s daily budget is spent');
      return;
    }
    const accountKey = rateLimitCounterKey(perAccount.bucket, rateLimitTrackerOf('user', userId));
    if ((await this.counters.hit(accountKey, perAccount.windowSeconds * 1000)).hits > perAccount.limit) {
      this.logger.warn({ userId }, 'E-mail change code skipped: the account’s daily budget is spent');
      return;
    }
    const token = newToken();
    await this.repository.replaceToken(undefined, userId, 'change', hashToken(token), email, EMAIL_TOKEN_TTL_SECONDS.change);
    await this.mail.send({
      to: email,
      subject: MAIL_SUBJECTS.change,
      text:
        `Confirm this address as your account's new e-mail address with this code (valid for 24 hours, once):\n\n${token}\n\n` +
        `Open this link to confirm it:\n${trimTrailingSlashes(this.config.publicBaseUrl)}${VERIFY_EMAIL_PAGE_PATH}#change=${token}\n\n` +
        `(or POST ${this.config.publicBaseUrl}/api/v1/account/email/confirm with {"token": "<the code>"}). If you did not ask for this, ignore this e-mail.\n`,
    });
  }

  /** The address went to another account meanwhile: the same 409 as signup (the caller holds a code for it, so it tells them nothing new). */
  private async translateTaken<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (uniqueViolationConstraint(error) === 'users_email_canonical_key') throw new AppException(ErrorCode.EMAIL_TAKEN, 'An account with this e-mail already exists');
      throw error;
    }
  }

  private inBackground(work: () => Promise<void>, failure: string): void {
    const run = work().catch((error: Error) => this.logger.warn({ err: error.message }, failure));
    this.pending.track(run);
  }
}
