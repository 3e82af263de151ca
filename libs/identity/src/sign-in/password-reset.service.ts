import { createHash, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { CredentialRevocations } from '../accounts/credential-revocations.service.js';
import { PasswordHasher } from '../accounts/password-hasher.service.js';
import { AppException, BackgroundWork, ErrorCode, validationException } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { MailService } from '#libs/mail';
import { BreachedPasswordsService } from '../breached-passwords/breached-passwords.service.js';
import { SecurityActivityService } from '../security-activity/security-activity.service.js';
import type { ClientInfo } from '../sessions/sessions.service.js';
import { AuthRepository } from './auth.repository.js';
import { AuthService } from './auth.service.js';
import type { ForgotPasswordDto, ResetPasswordDto, VerifyResetCodeDto } from './dto/auth-requests.dto.js';
import { toPasswordChangedDto, type MessageDto, type PasswordChangedDto, type ResetTokenDto } from './dto/auth-responses.dto.js';
import { LoginRateLimiter } from './login-rate-limiter.service.js';
import { ResetCodeRateLimiter } from './reset-code-rate-limiter.service.js';

/**
 * decisions.md: 6 digits, valid 15 minutes, at most 5 wrong tries (counted per caller, see
 * ResetCodeRateLimiter); the reset token is single-use, 15 minutes.
 */
const RESET_CODE_TTL_SECONDS = 15 * 60;
const RESET_TOKEN_TTL_SECONDS = 15 * 60;
/** Stands in for the user id when no live code matches, so the same work is done either way. */
const NO_ACCOUNT = '00000000-0000-0000-0000-000000000000';

const FORGOT_PASSWORD_MESSAGE = 'If an account exists for this e-mail, a 6-digit reset code has been sent to it; it is valid for 15 minutes';

function hashResetToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The one answer to every code that does not work: wrong, expired, replaced, or no such account. */
function invalidCode(headers?: Record<string, string>): AppException {
  return new AppException(ErrorCode.INVALID_RESET_CODE, 'The reset code is invalid or expired', undefined, headers);
}

function invalidResetToken(): AppException {
  return new AppException(ErrorCode.INVALID_RESET_TOKEN, 'The reset token is missing, invalid, expired or already used');
}

/**
 * Password reset by e-mailed code. Forgot-password answers at once with the same message
 * whether or not the account exists, and does the lookup and the mailing afterwards, so
 * neither the body nor the timing tells who has an account. Verify-reset-code answers every
 * failure alike, and its budgets are keyed by the e-mail as typed, so they count unknown
 * addresses exactly like registered ones.
 */
@Injectable()
export class PasswordResetService implements OnModuleDestroy {
  private readonly logger = new Logger(PasswordResetService.name);
  /** Six digits are brute-forced offline in a blink: codes are hashed with a server-side key. */
  private readonly codeKey: Buffer;
  private readonly pending = new BackgroundWork();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: AuthRepository,
    private readonly auth: AuthService,
    private readonly hasher: PasswordHasher,
    private readonly mail: MailService,
    private readonly limits: ResetCodeRateLimiter,
    private readonly revocations: CredentialRevocations,
    private readonly loginLimits: LoginRateLimiter,
    private readonly breachedPasswords: BreachedPasswordsService,
    private readonly activity: SecurityActivityService,
  ) {
    this.codeKey = Buffer.from(hkdfSync('sha256', config.jwtSecret, 'password-reset', 'reset-code-hmac', 32));
  }

  async forgotPassword(dto: ForgotPasswordDto, client: ClientInfo): Promise<MessageDto> {
    const email = dto.email.trim();
    // Counted before the lookup, so a known and an unknown e-mail reach the same limit.
    await this.limits.newCode(client.ipAddress, email);
    const delivery = this.deliverCode(email).catch((error: Error) =>
      this.logger.warn({ err: error.message }, 'Password reset code could not be delivered'),
    );
    this.pending.track(delivery);
    return { message: FORGOT_PASSWORD_MESSAGE };
  }

  async verifyResetCode(dto: VerifyResetCodeDto, client: ClientInfo): Promise<ResetTokenDto> {
    const email = dto.email.trim();
    const { judge, headers } = await this.limits.guess(client.ipAddress, email);
    if (!judge) throw invalidCode(headers);
    const live = await this.repository.findLiveResetCode(email);
    const presented = Buffer.from(this.hashCode(live?.userId ?? NO_ACCOUNT, dto.code.trim()), 'hex');
    const matches = timingSafeEqual(presented, Buffer.from(live?.codeHash ?? '0'.repeat(64), 'hex')) && live !== undefined;
    if (!live || !matches) throw invalidCode(headers);
    const token = randomBytes(32).toString('base64url');
    if (!(await this.repository.exchangeCodeForToken(live.userId, live.codeHash, hashResetToken(token), RESET_TOKEN_TTL_SECONDS))) throw invalidCode(headers);
    return { token };
  }

  async resetPassword(dto: ResetPasswordDto, client: ClientInfo): Promise<PasswordChangedDto> {
    if (typeof dto.token !== 'string' || dto.token.length === 0 || dto.token.length > 512) throw invalidResetToken();
    if (dto.passwordConfirm !== dto.password) {
      throw validationException([{ field: 'passwordConfirm', messages: ['passwordConfirm must equal password'] }], 'passwordConfirm does not match password');
    }
    const tokenHash = hashResetToken(dto.token);
    // Look before hashing: an unknown token must not cost a bcrypt round.
    if (!(await this.repository.findResetTokenOwner(tokenHash))) throw invalidResetToken();
    await this.breachedPasswords.assertNotBreached(dto.password);
    const passwordHash = await this.hasher.hash(dto.password);
    const { userId, email, disconnected } = await this.repository.transaction(async (tx) => {
      const owner = await this.repository.useResetToken(tx, tokenHash);
      if (!owner) throw invalidResetToken();
      const replaced = await this.auth.replacePassword(tx, owner, passwordHash);
      await this.activity.record(tx, owner, 'password_reset', { client, details: { disconnectedApps: replaced.disconnected.length } });
      return { userId: owner, ...replaced };
    });
    await this.revocations.announce(userId);
    // The owner proved the mailbox: the account's sign-in lock ends (LoginRateLimiter). Best effort: the reset has committed.
    await this.loginLimits.passwordReset(client.ipAddress, email).catch((error: Error) =>
      this.logger.warn({ userId, err: error.message }, 'Could not clear the sign-in lock after a password reset'),
    );
    return toPasswordChangedDto('Password reset; every session has been signed out, sign in with the new password', disconnected);
  }

  async onModuleDestroy(): Promise<void> {
    await this.pending.settled();
  }

  private async deliverCode(email: string): Promise<void> {
    const user = await this.repository.findUserByEmail(email);
    if (!user) return;
    const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
    await this.repository.saveResetCode(user.id, this.hashCode(user.id, code), RESET_CODE_TTL_SECONDS);
    await this.mail.send({
      to: user.email,
      subject: 'Your password reset code',
      text:
        `Your password reset code is ${code}.\n\n` +
        'It is valid for 15 minutes and can be tried 5 times. If you did not ask to reset your password, ignore this e-mail.\n',
    });
  }

  private hashCode(userId: string, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${userId}:${code}`).digest('hex');
  }
}
