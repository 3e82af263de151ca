import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AccessTokenService } from '../access-tokens/access-token.service.js';
import { AccountOAuthGrants } from '../oauth-resource/account-oauth-grants.service.js';
import { CredentialRevocations } from '../accounts/credential-revocations.service.js';
import { PasswordHasher } from '../accounts/password-hasher.service.js';
import { type RevokedOAuthApp } from '../oauth-resource/oauth-access.repository.js';
import { type UserRow } from '../accounts/account.rows.js';
import { AppException, ErrorCode, uniqueViolationConstraint, validationException } from '#libs/common';
import type { Transaction } from '#libs/database';
import { BreachedPasswordsService } from '../breached-passwords/breached-passwords.service.js';
import { EmailVerificationService } from '../email-verification/email-verification.service.js';
import { SignInNoticesService } from '../email-verification/sign-in-notices.service.js';
import { SecurityActivityService } from '../security-activity/security-activity.service.js';
import type { PasskeySignInDto } from '../passkeys/dto/passkey.dto.js';
import { PasskeysService } from '../passkeys/passkeys.service.js';
import type { MfaVerifyDto } from '../second-factor/dto/second-factor.dto.js';
import { SecondFactorService } from '../second-factor/second-factor.service.js';
import { SessionsService, type ClientInfo } from '../sessions/sessions.service.js';
import { AuthRepository } from './auth.repository.js';
import type { ChangePasswordDto, LoginDto, LogoutDto, SignupDto } from './dto/auth-requests.dto.js';
import { toPasswordChangedDto, toUserDto, type AuthTokenDataDto, type MessageDto, type PasswordChangedDto, type VerifyDataDto } from './dto/auth-responses.dto.js';
import { LoginRateLimiter } from './login-rate-limiter.service.js';
import { TurnstileVerifier } from './turnstile.verifier.js';
import { UsersService } from '../accounts/users.service.js';

/** How many suffixed variants of a derived username are tried before giving up. */
const DERIVED_USERNAME_TRIES = 5;

function newUserKey(): string {
  return `usr_${randomBytes(12).toString('hex')}`;
}

/** A username from the e-mail's local part: allowed characters only, 3..24 long. */
function usernameFromEmail(email: string): string {
  const local = email.split('@')[0].toLowerCase().replace(/[^a-z0-9_.-]/g, '');
  const base = local.slice(0, 24);
  return base.length >= 3 ? base : `user${base}`;
}

function withSuffix(base: string): string {
  return `${base.slice(0, 24)}_${randomBytes(3).toString('hex')}`;
}

function mismatch(field: string, other: string): AppException {
  return validationException([{ field, messages: [`${field} must equal ${other}`] }], `${field} does not match ${other}`);
}

/** Sign-up, sign-in, token refresh, sign-out and password change. */
@Injectable()
export class AuthService {
  constructor(
    private readonly repository: AuthRepository,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly accessTokens: AccessTokenService,
    private readonly hasher: PasswordHasher,
    private readonly loginLimiter: LoginRateLimiter,
    private readonly turnstile: TurnstileVerifier,
    private readonly revocations: CredentialRevocations,
    private readonly oauthGrants: AccountOAuthGrants,
    private readonly breachedPasswords: BreachedPasswordsService,
    private readonly activity: SecurityActivityService,
    private readonly emailVerification: EmailVerificationService,
    private readonly signInNotices: SignInNoticesService,
    private readonly secondFactor: SecondFactorService,
    private readonly passkeys: PasskeysService,
  ) {}

  async signup(dto: SignupDto, client: ClientInfo): Promise<AuthTokenDataDto> {
    if (dto.passwordConfirm !== undefined && dto.passwordConfirm !== dto.password) throw mismatch('passwordConfirm', 'password');
    await this.turnstile.verify(dto.turnstileToken, client.ipAddress);
    await this.breachedPasswords.assertNotBreached(dto.password);
    const email = dto.email.trim();
    const passwordHash = await this.hasher.hash(dto.password);
    const derived = dto.username === undefined;
    let username = dto.username ?? usernameFromEmail(email);
    if (derived && (await this.repository.usernameTaken(username))) username = withSuffix(username);
    for (let attempt = 1; ; attempt++) {
      try {
        const data = await this.repository.transaction(async (tx) => {
          const user = await this.repository.insertUser(tx, { userKey: newUserKey(), username, email, passwordHash });
          const issued = await this.sessions.start(tx, user.id, client);
          return this.tokenData(user, issued.sessionId, issued.refreshToken);
        });
        // In the background: the answer (and its timing) stays the published one.
        this.emailVerification.afterSignup(data.user.id, email);
        return data;
      } catch (error) {
        const constraint = uniqueViolationConstraint(error);
        if (constraint === 'users_email_canonical_key') throw new AppException(ErrorCode.EMAIL_TAKEN, 'An account with this e-mail already exists');
        if (constraint === 'users_username_lower_key') {
          if (derived && attempt < DERIVED_USERNAME_TRIES) {
            username = withSuffix(usernameFromEmail(email));
            continue;
          }
          throw new AppException(ErrorCode.USERNAME_TAKEN, 'This username is taken');
        }
        throw error;
      }
    }
  }

  async login(dto: LoginDto, client: ClientInfo): Promise<AuthTokenDataDto> {
    const user = await this.checkPassword(dto.email, dto.password, client);
    const challenge = await this.secondFactor.challengeIfEnrolled(user.id);
    if (challenge) {
      throw new AppException(ErrorCode.MFA_REQUIRED, 'This account uses a second factor: send a code with the challenge token to POST /api/v1/auth/mfa/verify', challenge);
    }
    const issued = await this.sessions.start(undefined, user.id, client);
    await this.activity.recordAfter(user.id, 'sign_in', { client, details: { sessionId: issued.sessionId } });
    this.signInNotices.afterSignIn(user, issued.sessionId, client);
    return this.tokenData(user, issued.sessionId, issued.refreshToken);
  }

  /** The second step of a sign-in that answered MFA_REQUIRED: the challenge and a code or a passkey, then the same token data as login. */
  async verifySecondFactor(dto: MfaVerifyDto, client: ClientInfo): Promise<AuthTokenDataDto> {
    const { passkey } = dto;
    const { userId, method } = passkey !== undefined ? await this.passkeys.passChallenge({ ...dto, passkey }, client) : await this.secondFactor.passChallenge(dto, client);
    const user = await this.users.findById(userId);
    if (!user) throw new AppException(ErrorCode.INVALID_TOKEN, 'The sign-in challenge is invalid, expired or already used: sign in again');
    return this.signedIn(user, client, { secondFactor: method });
  }

  /** A passwordless sign-in with a passkey: the same token data as login. */
  async signInWithPasskey(dto: PasskeySignInDto, client: ClientInfo): Promise<AuthTokenDataDto> {
    const userId = await this.passkeys.passwordless(dto, client);
    const user = await this.users.findById(userId);
    if (!user) throw new AppException(ErrorCode.INVALID_CREDENTIALS, 'The passkey was not accepted: ask for new options and try again');
    return this.signedIn(user, client, { method: 'passkey' });
  }

  /** A new session after a sign-in passed its checks: the activity entry, the new-device notice, the token data. */
  private async signedIn(user: UserRow, client: ClientInfo, details: Record<string, unknown>): Promise<AuthTokenDataDto> {
    const issued = await this.sessions.start(undefined, user.id, client);
    await this.activity.recordAfter(user.id, 'sign_in', { client, details: { sessionId: issued.sessionId, ...details } });
    this.signInNotices.afterSignIn(user, issued.sessionId, client);
    return this.tokenData(user, issued.sessionId, issued.refreshToken);
  }

  /**
   * The sign-in rule, for every way of signing in (login, the OAuth sign-in page): the e-mail's
   * account and its password, under the failed-login limits. Starts no session.
   */
  async checkPassword(email: string, password: string, client: ClientInfo): Promise<UserRow> {
    const attempt = await this.loginLimiter.begin(client.ipAddress, email);
    const user = await this.repository.findUserByEmail(email.trim());
    const valid = user ? await this.hasher.verify(password, user.passwordHash) : await this.hasher.verifyNothing(password);
    if (!user || !valid) {
      // Not awaited: the answer and its timing stay those of an unknown e-mail.
      if (user) void this.activity.recordAfter(user.id, 'sign_in_failed', { client });
      throw new AppException(ErrorCode.INVALID_CREDENTIALS, 'Wrong e-mail or password', undefined, attempt.headers);
    }
    await attempt.succeeded();
    return user;
  }

  async verify(userId: string): Promise<VerifyDataDto> {
    return { user: toUserDto(await this.requireUser(userId)) };
  }

  async refresh(refreshToken: string, retryKey: string | undefined): Promise<AuthTokenDataDto> {
    if (retryKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(retryKey)) {
      throw validationException([{ field: 'Idempotency-Key', messages: ['must be 1 to 255 visible ASCII characters'] }], 'The Idempotency-Key header is invalid');
    }
    const issued = await this.sessions.refresh(refreshToken, retryKey);
    const user = await this.users.findById(issued.userId);
    if (!user) throw new AppException(ErrorCode.INVALID_TOKEN, 'The refresh token is invalid, expired or revoked');
    return this.tokenData(user, issued.sessionId, issued.refreshToken);
  }

  /**
   * allSessions: every session; refreshToken: the session holding it (if it is the
   * caller's); neither: the session of the access token used.
   */
  async logout(userId: string, currentSessionId: string, dto: LogoutDto): Promise<MessageDto> {
    if (dto.allSessions) {
      const count = await this.sessions.revokeAll(undefined, userId);
      return { message: `Signed out of ${count} session${count === 1 ? '' : 's'}` };
    }
    if (dto.refreshToken !== undefined) {
      await this.sessions.revokeByRefreshToken(userId, dto.refreshToken);
      return { message: 'Signed out' };
    }
    await this.sessions.revoke(userId, currentSessionId);
    return { message: 'Signed out' };
  }

  async changePassword(userId: string, dto: ChangePasswordDto, client: ClientInfo): Promise<PasswordChangedDto> {
    if (dto.newPasswordConfirm !== dto.newPassword) throw mismatch('newPasswordConfirm', 'newPassword');
    const user = await this.requireUser(userId);
    if (!(await this.hasher.verify(dto.currentPassword, user.passwordHash))) {
      throw new AppException(ErrorCode.INVALID_CREDENTIALS, 'The current password is wrong');
    }
    await this.breachedPasswords.assertNotBreached(dto.newPassword);
    await this.secondFactor.requireCurrentFactor(userId, dto, client, 'password_change');
    const passwordHash = await this.hasher.hash(dto.newPassword);
    const { disconnected } = await this.repository.transaction(async (tx) => {
      const replaced = await this.replacePassword(tx, userId, passwordHash);
      await this.activity.record(tx, userId, 'password_changed', { details: { disconnectedApps: replaced.disconnected.length } });
      return replaced;
    });
    await this.revocations.announce(userId);
    return toPasswordChangedDto('Password changed; every session has been signed out, sign in again', disconnected);
  }

  /**
   * A new password takes over (a change or a reset), in the caller's transaction: earlier reset codes and tokens are
   * discarded, and every session and every connected app's grant is revoked. The caller announces the revocation after
   * its commit. Answers the account's e-mail and the apps disconnected.
   */
  async replacePassword(tx: Transaction, userId: string, passwordHash: string): Promise<{ email: string; disconnected: RevokedOAuthApp[] }> {
    const email = await this.repository.setPassword(tx, userId, passwordHash);
    await this.repository.discardResetState(tx, userId);
    await this.sessions.revokeAll(tx, userId);
    return { email, disconnected: await this.oauthGrants.revokeAll(tx, userId) };
  }

  private async requireUser(userId: string): Promise<UserRow> {
    const user = await this.users.findById(userId);
    if (!user) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    return user;
  }

  private tokenData(user: UserRow, sessionId: string, refreshToken: string): AuthTokenDataDto {
    return { token: this.accessTokens.sign(user.id, sessionId), refreshToken, user: toUserDto(user) };
  }
}
