import { createHash, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { CredentialRevocations, PasswordHasher } from '#libs/accounts';
import { AppException, ErrorCode, validationException } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { MailService } from '#libs/mail';
import { SessionsService } from '../sessions/sessions.service.js';
import { AuthRepository } from './auth.repository.js';
import type { ForgotPasswordDto, ResetPasswordDto, VerifyResetCodeDto } from './dto/auth-requests.dto.js';
import type { MessageDto, ResetTokenDto } from './dto/auth-responses.dto.js';

/** decisions.md: 6 digits, valid 15 minutes, at most 5 tries; the reset token is single-use, 15 minutes. */
export const RESET_CODE_TTL_SECONDS = 15 * 60;
export const RESET_CODE_MAX_ATTEMPTS = 5;
export const RESET_TOKEN_TTL_SECONDS = 15 * 60;

const FORGOT_PASSWORD_MESSAGE = 'If an account exists for this e-mail, a 6-digit reset code has been sent to it; it is valid for 15 minutes';

function hashResetToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function invalidCode(message = 'The reset code is invalid or expired'): AppException {
  return new AppException(ErrorCode.INVALID_RESET_CODE, message);
}

function invalidResetToken(): AppException {
  return new AppException(ErrorCode.INVALID_RESET_TOKEN, 'The reset token is missing, invalid, expired or already used');
}

/**
 * Password reset by e-mailed code. Forgot-password answers at once with the same message
 * whether or not the account exists, and does the lookup and the mailing afterwards, so
 * neither the body nor the timing tells who has an account.
 */
@Injectable()
export class PasswordResetService implements OnModuleDestroy {
  private readonly logger = new Logger(PasswordResetService.name);
  /** Six digits are brute-forced offline in a blink: codes are hashed with a server-side key. */
  private readonly codeKey: Buffer;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: AuthRepository,
    private readonly sessions: SessionsService,
    private readonly hasher: PasswordHasher,
    private readonly mail: MailService,
    private readonly revocations: CredentialRevocations,
  ) {
    this.codeKey = Buffer.from(hkdfSync('sha256', config.jwtSecret, 'password-reset', 'reset-code-hmac', 32));
  }

  forgotPassword(dto: ForgotPasswordDto): MessageDto {
    const delivery = this.deliverCode(dto.email.trim()).catch((error: Error) =>
      this.logger.warn({ err: error.message }, 'Password reset code could not be delivered'),
    );
    this.pending.add(delivery);
    void delivery.finally(() => this.pending.delete(delivery));
    return { message: FORGOT_PASSWORD_MESSAGE };
  }

  async verifyResetCode(dto: VerifyResetCodeDto): Promise<ResetTokenDto> {
    const user = await this.repository.findUserByEmail(dto.email.trim());
    if (!user) throw invalidCode();
    const attempt = await this.repository.takeResetCodeAttempt(user.id, RESET_CODE_MAX_ATTEMPTS);
    if (!attempt) throw invalidCode('The reset code is invalid, expired or out of tries; request a new one');
    const presented = Buffer.from(this.hashCode(user.id, dto.code.trim()), 'hex');
    if (!timingSafeEqual(presented, Buffer.from(attempt.codeHash, 'hex'))) {
      const left = RESET_CODE_MAX_ATTEMPTS - attempt.attempts;
      throw invalidCode(left > 0 ? `The reset code is wrong; ${left} tr${left === 1 ? 'y' : 'ies'} left` : 'The reset code is wrong and out of tries; request a new one');
    }
    const token = randomBytes(32).toString('base64url');
    if (!(await this.repository.exchangeCodeForToken(user.id, attempt.codeHash, hashResetToken(token), RESET_TOKEN_TTL_SECONDS))) throw invalidCode();
    return { token };
  }

  async resetPassword(dto: ResetPasswordDto): Promise<MessageDto> {
    if (typeof dto.token !== 'string' || dto.token.length === 0 || dto.token.length > 512) throw invalidResetToken();
    if (dto.passwordConfirm !== dto.password) {
      throw validationException([{ field: 'passwordConfirm', messages: ['passwordConfirm must equal password'] }], 'passwordConfirm does not match password');
    }
    const tokenHash = hashResetToken(dto.token);
    // Look before hashing: an unknown token must not cost a bcrypt round.
    if (!(await this.repository.findResetTokenOwner(tokenHash))) throw invalidResetToken();
    const passwordHash = await this.hasher.hash(dto.password);
    const userId = await this.repository.transaction(async (manager) => {
      const owner = await this.repository.useResetToken(tokenHash, manager);
      if (!owner) throw invalidResetToken();
      await this.repository.setPassword(owner, passwordHash, manager);
      await this.repository.discardResetState(owner, manager);
      await this.sessions.revokeAll(owner, manager);
      return owner;
    });
    await this.revocations.announce(userId);
    return { message: 'Password reset; every session has been signed out, sign in with the new password' };
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.pending]);
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
