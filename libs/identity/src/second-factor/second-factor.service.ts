import { Inject, Injectable, Logger } from '@nestjs/common';
import { generateSecret, generateURI, verify } from 'otplib';
import { AppException, ErrorCode, SecretSealer, validationException } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { Transaction } from '#libs/database';
import { requireConfirmedEmail } from '../accounts/confirmed-email.js';
import type { PasskeyAssertionDto } from '../passkeys/dto/passkey.dto.js';
import { PasskeyAssertions } from '../passkeys/passkey-assertions.service.js';
import { PasswordHasher } from '../accounts/password-hasher.service.js';
import { SecurityActivityService } from '../security-activity/security-activity.service.js';
import type { ClientInfo } from '../sessions/sessions.service.js';
import {
  toMfaStatusDto,
  type ConfirmTotpDto,
  type FreshFactorCheckDto,
  type MfaDisabledDto,
  type MfaStatusDto,
  type MfaVerifyDto,
  type RecoveryCodesDto,
  type StartTotpDto,
  type TotpEnrolmentDto,
} from './dto/second-factor.dto.js';
import { generateChallengeToken, generateRecoveryCodes, hashChallengeToken, hashRecoveryCode, totpSecretSealer } from './second-factor-secrets.js';
import { SecondFactorRateLimiter } from './second-factor-rate-limiter.service.js';
import { SecondFactorRepository } from './second-factor.repository.js';
import { UsersService } from '../accounts/users.service.js';

/** How long the challenge token of a sign-in that answered MFA_REQUIRED stays usable. */
const MFA_CHALLENGE_TTL_SECONDS = 5 * 60;
/**
 * Codes of the time steps next to the current one (30 s each) are accepted too, for clocks a little off and codes
 * typed as they changed; a step once accepted never is again (replay), nor any before it.
 */
const TOTP_TOLERANCE_SECONDS = 30;

/** The time step a right code belongs to (newer than `afterTimeStep`), or null for a wrong one. */
async function acceptedTimeStep(secret: string, token: string, afterTimeStep?: number): Promise<number | null> {
  try {
    const result = await verify({ secret, token, epochTolerance: TOTP_TOLERANCE_SECONDS, ...(afterTimeStep === undefined ? {} : { afterTimeStep }) });
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  } catch {
    // otplib refuses a last step beyond the window (a clock set back): no code can be newer, so none is right.
    return null;
  }
}

/** What MFA_REQUIRED carries in error.details. */
export interface MfaChallengeDetails {
  challengeToken: string;
  expiresIn: number;
  methods: Array<'totp' | 'recovery_code' | 'passkey'>;
}

/** A live sign-in challenge as a passkey sees it: whose it is, and the WebAuthn challenge asked for it (null before any). */
export interface OpenMfaChallenge {
  userId: string;
  tokenHash: string;
  webauthnChallenge: string | null;
  expiresIn: number;
}

/** A code that checked out, to be taken (used up) inside the caller's transaction: false when a concurrent use took it first. */
type FactorClaim = { method: 'totp' | 'recovery_code'; take: (tx: Transaction) => Promise<boolean> };
/** A passkey assertion that checked out in a fresh check, recorded (its counter) inside the caller's transaction. */
type PasskeyProofClaim = { method: 'passkey'; take: (tx: Transaction) => Promise<boolean>; passkeyId: string; passkeyName: string };

function exactlyOneFactor(input: { code?: string; recoveryCode?: string }): void {
  if ((input.code === undefined) === (input.recoveryCode === undefined)) {
    throw validationException([{ field: 'code', messages: ['give exactly one of code or recoveryCode'] }], 'Give exactly one of code or recoveryCode');
  }
}

/** A fresh factor check's proof: exactly one of a TOTP code, a recovery code or a passkey assertion. */
function exactlyOneProof(input: FreshFactorCheckDto): void {
  if ([input.code, input.recoveryCode, input.passkey].filter((given) => given !== undefined).length !== 1) {
    throw validationException([{ field: 'code', messages: ['give exactly one of code, recoveryCode or passkey'] }], 'Give exactly one of code, recoveryCode or passkey');
  }
}

/** A second-factor proof: one of a TOTP code, a recovery code or a passkey assertion. */
type FactorProof = { code?: string; recoveryCode?: string; passkey?: PasskeyAssertionDto };

/** What a person typed where a code is asked: a TOTP code (6 digits) or a recovery code. */
function typedProof(typed: string): FactorProof {
  return /^[0-9]{6}$/.test(typed) ? { code: typed } : { recoveryCode: typed.slice(0, 64) };
}

function proofMethod(input: FactorProof): 'totp' | 'recovery_code' | 'passkey' {
  return input.passkey !== undefined ? 'passkey' : input.code !== undefined ? 'totp' : 'recovery_code';
}

function invalidChallenge(headers?: Record<string, string>): AppException {
  return new AppException(ErrorCode.INVALID_TOKEN, 'The sign-in challenge is invalid, expired or already used: sign in again', undefined, headers);
}

/**
 * The TOTP second factor and its recovery codes: enrolment (start, confirm with a first code, which hands out the ten
 * recovery codes once), disabling and new recovery codes (each after a fresh check: password and a code), and the
 * sign-in challenge an account with a confirmed factor answers (AuthService issues the tokens once it is passed).
 * Every code guess is counted first (SecondFactorRateLimiter).
 */
@Injectable()
export class SecondFactorService {
  private readonly logger = new Logger(SecondFactorService.name);
  private readonly sealer: SecretSealer;
  private readonly issuer: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: SecondFactorRepository,
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly limiter: SecondFactorRateLimiter,
    private readonly activity: SecurityActivityService,
    private readonly passkeys: PasskeyAssertions,
  ) {
    this.sealer = totpSecretSealer(config.jwtSecret);
    this.issuer = URL.parse(config.publicBaseUrl)?.host || 'todo-api';
  }

  async status(userId: string): Promise<MfaStatusDto> {
    const [factor, factors, remaining] = await Promise.all([this.repository.findTotp(userId), this.repository.factorsOf(userId), this.repository.unusedRecoveryCodes(userId)]);
    return toMfaStatusDto(factor, factors.passkeys, remaining);
  }

  async startTotp(userId: string, dto: StartTotpDto): Promise<TotpEnrolmentDto> {
    const user = await this.users.findById(userId);
    if (!user) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    if (!(await this.hasher.verify(dto.password, user.passwordHash))) throw new AppException(ErrorCode.INVALID_CREDENTIALS, 'The password is wrong');
    requireConfirmedEmail(user);
    const secret = generateSecret();
    if (!(await this.repository.putPendingTotp(userId, this.sealer.seal(secret)))) {
      throw new AppException(ErrorCode.CONFLICT, 'An authenticator is already on: disable it first to enrol another');
    }
    const otpauthUri = generateURI({ issuer: this.issuer, label: user.email, secret });
    // Loaded on first use: only enrolment draws a QR code, and the library costs every replica memory from start.
    const { default: QRCode } = await import('qrcode');
    return { secret, otpauthUri, qrCodeDataUrl: await QRCode.toDataURL(otpauthUri), confirmed: false };
  }

  async confirmTotp(userId: string, dto: ConfirmTotpDto, client: ClientInfo): Promise<RecoveryCodesDto> {
    const factor = await this.repository.findTotp(userId);
    if (!factor) throw new AppException(ErrorCode.NOT_FOUND, 'No enrolment is pending: start one first');
    if (factor.confirmedAt) throw new AppException(ErrorCode.CONFLICT, 'The authenticator is already confirmed');
    const attempt = await this.limiter.begin(client.ipAddress, userId);
    const secret = this.sealer.open(factor.secretSealed);
    const timeStep = secret === undefined ? null : await acceptedTimeStep(secret, dto.code);
    if (timeStep === null) throw new AppException(ErrorCode.INVALID_CREDENTIALS, 'The code is wrong: check the authenticator app and its clock', undefined, attempt.headers);
    const codes = generateRecoveryCodes();
    await this.repository.transaction(async (tx) => {
      if (!(await this.repository.takeTimeStep(tx, userId, timeStep, false))) throw new AppException(ErrorCode.CONFLICT, 'The authenticator is already confirmed');
      await this.repository.replaceRecoveryCodes(tx, userId, codes.map(hashRecoveryCode));
      await this.activity.record(tx, userId, 'mfa_enabled', { client, details: { method: 'totp' } });
    });
    await attempt.succeeded();
    return { recoveryCodes: codes };
  }

  async disableTotp(userId: string, dto: FreshFactorCheckDto, client: ClientInfo): Promise<MfaDisabledDto> {
    await this.freshCheck(userId, dto, client, 'disable', async (tx) => {
      await this.repository.removeAll(tx, userId);
      await this.activity.record(tx, userId, 'mfa_disabled', { client, details: { method: 'totp' } });
    });
    return { totpEnabled: false };
  }

  async regenerateRecoveryCodes(userId: string, dto: FreshFactorCheckDto, client: ClientInfo): Promise<RecoveryCodesDto> {
    const codes = generateRecoveryCodes();
    await this.freshCheck(
      userId,
      dto,
      client,
      'recovery_codes',
      async (tx) => {
        await this.repository.replaceRecoveryCodes(tx, userId, codes.map(hashRecoveryCode));
        await this.activity.record(tx, userId, 'recovery_codes_regenerated', { client });
      },
      'any',
    );
    return { recoveryCodes: codes };
  }

  /** The sign-in challenge of an account with a confirmed factor (a new one each time), or null for an account without one. */
  async challengeIfEnrolled(userId: string): Promise<MfaChallengeDetails | null> {
    const factors = await this.repository.factorsOf(userId);
    if (!factors.totp && factors.passkeys === 0) return null;
    const challengeToken = generateChallengeToken();
    await this.repository.createChallenge(userId, hashChallengeToken(challengeToken), MFA_CHALLENGE_TTL_SECONDS);
    const methods: MfaChallengeDetails['methods'] = factors.totp ? ['totp', 'recovery_code'] : ['recovery_code'];
    if (factors.passkeys > 0) methods.push('passkey');
    return { challengeToken, expiresIn: MFA_CHALLENGE_TTL_SECONDS, methods };
  }

  /** A live sign-in challenge (for a passkey to answer), or null (unknown, expired or used). */
  async openChallenge(challengeToken: string): Promise<OpenMfaChallenge | null> {
    const tokenHash = hashChallengeToken(challengeToken);
    const live = await this.repository.liveChallenge(tokenHash);
    return live && { ...live, tokenHash };
  }

  /** Asks a passkey to sign `webauthnChallenge` for this sign-in challenge (replacing an earlier one); false when the challenge is gone. */
  attachWebAuthnChallenge(challenge: OpenMfaChallenge, webauthnChallenge: string): Promise<boolean> {
    return this.repository.setWebAuthnChallenge(challenge.userId, challenge.tokenHash, webauthnChallenge);
  }

  /** Ends the sign-in challenge a passkey answered (in the caller's transaction): true for the one request that ends it. */
  endChallenge(tx: Transaction, challenge: OpenMfaChallenge & { webauthnChallenge: string }): Promise<boolean> {
    return this.repository.consumeChallenge(tx, challenge.userId, challenge.tokenHash, challenge.webauthnChallenge);
  }

  /** Ten new recovery codes for an account's first second factor that is not an authenticator (a passkey), in its transaction. */
  async issueRecoveryCodes(tx: Transaction, userId: string): Promise<string[]> {
    const codes = generateRecoveryCodes();
    await this.repository.replaceRecoveryCodes(tx, userId, codes.map(hashRecoveryCode));
    return codes;
  }

  /** After a factor was removed (in its transaction): with none left, the recovery codes go too. */
  afterFactorRemoved(tx: Transaction, userId: string): Promise<void> {
    return this.repository.dropRecoveryCodesIfNoFactor(tx, userId);
  }

  /**
   * The fresh factor check of a change to another factor (removing a passkey): the same proof as for disabling the
   * authenticator (freshCheck), on an account with any second factor; then `change`, in one transaction.
   */
  async withFreshCheck(userId: string, dto: FreshFactorCheckDto, client: ClientInfo, context: string, change: (tx: Transaction) => Promise<void>): Promise<void> {
    await this.freshCheck(userId, dto, client, context, change, 'any');
  }

  /**
   * Passes a sign-in challenge with a TOTP or recovery code: answers the account, the challenge and the code used up
   * (one transaction: two requests with one challenge or one code, only one passes). A wrong code leaves the challenge
   * for another try (within the budgets).
   */
  async passChallenge(dto: MfaVerifyDto, client: ClientInfo): Promise<{ userId: string; method: 'totp' | 'recovery_code' }> {
    exactlyOneFactor(dto);
    const tokenHash = hashChallengeToken(dto.challengeToken);
    const userId = await this.repository.challengeOwner(tokenHash);
    const attempt = await this.limiter.begin(client.ipAddress, userId);
    if (!userId) throw invalidChallenge(attempt.headers);
    const claim = await this.judge(userId, dto);
    if (!claim) {
      void this.activity.recordAfter(userId, 'mfa_challenge_failed', { client, details: { context: 'sign_in', method: dto.code !== undefined ? 'totp' : 'recovery_code' } });
      throw new AppException(ErrorCode.INVALID_CREDENTIALS, 'The code is wrong or was already used', undefined, attempt.headers);
    }
    await this.repository.transaction(async (tx) => {
      if (!(await this.repository.consumeChallenge(tx, userId, tokenHash))) throw invalidChallenge(attempt.headers);
      if (!(await claim.take(tx))) throw new AppException(ErrorCode.INVALID_CREDENTIALS, 'The code is wrong or was already used', undefined, attempt.headers);
      if (claim.method === 'recovery_code') await this.activity.record(tx, userId, 'recovery_code_used', { client, details: { context: 'sign_in' } });
    });
    await attempt.succeeded();
    return { userId, method: claim.method };
  }

  /** Whether sign-in asks this account for a second factor (a confirmed authenticator or a passkey). */
  async isEnabled(userId: string): Promise<boolean> {
    const factors = await this.repository.factorsOf(userId);
    return factors.totp || factors.passkeys > 0;
  }

  /**
   * A second factor shown on a sign-in form of our own (the OAuth sign-in page), after the password: counted, judged and
   * used up as at POST /api/v1/auth/mfa/verify. `typed`: what the person typed, a TOTP code (6 digits) or a recovery code.
   */
  async passForSignIn(userId: string, typed: string, client: ClientInfo): Promise<void> {
    await this.passTyped(userId, typed, client, 'oauth_sign_in');
  }

  /**
   * A current factor for a sensitive change of the account (password change, deletion), after its password check:
   * nothing for an account without a confirmed factor (its answers stay the published ones); with one, `code` (a TOTP or
   * a recovery code) or `passkey` (an assertion over POST /api/v1/account/passkey-check-options) must come along (401
   * MFA_CODE_REQUIRED without either) and is counted, judged and used up as at sign-in (the same judgeProof as freshCheck).
   */
  async requireCurrentFactor(
    userId: string,
    proof: { code?: string; passkey?: PasskeyAssertionDto },
    client: ClientInfo,
    context: 'password_change' | 'account_deletion',
  ): Promise<void> {
    if (!(await this.isEnabled(userId))) return;
    if (proof.code === undefined && proof.passkey === undefined) {
      throw new AppException(ErrorCode.MFA_CODE_REQUIRED, 'This account uses a second factor: send `code`, the authenticator’s current code or a recovery code (or `passkey`)');
    }
    if (proof.code !== undefined && proof.passkey !== undefined) {
      throw validationException([{ field: 'passkey', messages: ['give one of code or passkey'] }], 'Give one of code or passkey');
    }
    await this.passProof(userId, proof.passkey !== undefined ? { passkey: proof.passkey } : typedProof(proof.code!), client, context);
  }

  private passTyped(userId: string, typed: string, client: ClientInfo, context: string): Promise<void> {
    return this.passProof(userId, typedProof(typed), client, context);
  }

  /** One proof (a code or a passkey assertion), counted, judged and used up, outside a fresh check (no password here). */
  private async passProof(userId: string, input: FactorProof, client: ClientInfo, context: string): Promise<void> {
    const attempt = await this.limiter.begin(client.ipAddress, userId);
    const claim = await this.judgeProof(userId, input);
    const method = proofMethod(input);
    const refused = () => new AppException(ErrorCode.INVALID_CREDENTIALS, method === 'passkey' ? 'The passkey was not accepted' : 'The code is wrong or was already used', undefined, attempt.headers);
    if (!claim) {
      void this.activity.recordAfter(userId, 'mfa_challenge_failed', { client, details: { context, method } });
      throw refused();
    }
    await this.repository.transaction(async (tx) => {
      if (!(await claim.take(tx))) throw refused();
      await this.recordProofUse(tx, userId, claim, client, context);
    });
    await attempt.succeeded();
  }

  private async recordProofUse(tx: Transaction, userId: string, claim: FactorClaim | PasskeyProofClaim, client: ClientInfo, context: string): Promise<void> {
    if (claim.method === 'recovery_code') await this.activity.record(tx, userId, 'recovery_code_used', { client, details: { context } });
    if (claim.method === 'passkey') await this.activity.record(tx, userId, 'passkey_used', { client, details: { context, passkeyId: claim.passkeyId, name: claim.passkeyName } });
  }

  /**
   * The one fresh second-factor proof of every route that asks for it (disabling the authenticator, new recovery codes,
   * removing a passkey): the password and, right now, exactly one of a TOTP code, a recovery code or an assertion of one
   * of the account's passkeys (over options of POST /api/v1/account/passkey-check-options); then `change` with the proof
   * used up, in one transaction. `needs`: the factor the change is about ('totp': the authenticator; 'any': any second factor).
   */
  private async freshCheck(
    userId: string,
    dto: FreshFactorCheckDto,
    client: ClientInfo,
    context: string,
    change: (tx: Transaction) => Promise<void>,
    needs: 'totp' | 'any' = 'totp',
  ): Promise<void> {
    exactlyOneProof(dto);
    const [user, factors] = await Promise.all([this.users.findById(userId), this.repository.factorsOf(userId)]);
    if (!user) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    if (!factors.totp && (needs === 'totp' || factors.passkeys === 0)) throw new AppException(ErrorCode.NOT_FOUND, 'The account has no second factor');
    const attempt = await this.limiter.begin(client.ipAddress, userId);
    const passwordRight = await this.hasher.verify(dto.password, user.passwordHash);
    const method = proofMethod(dto);
    const refused = () => new AppException(ErrorCode.INVALID_CREDENTIALS, `The password or the ${method === 'passkey' ? 'passkey' : 'code'} is wrong`, undefined, attempt.headers);
    const claim = passwordRight ? await this.judgeProof(userId, dto) : null;
    if (!claim) {
      void this.activity.recordAfter(userId, 'mfa_challenge_failed', { client, details: { context, method } });
      throw refused();
    }
    await this.repository.transaction(async (tx) => {
      if (!(await claim.take(tx))) throw refused();
      await this.recordProofUse(tx, userId, claim, client, context);
      await change(tx);
    });
    await attempt.succeeded();
  }

  /** A fresh check's proof judged: a code (as everywhere) or a passkey assertion. */
  private async judgeProof(userId: string, dto: FactorProof): Promise<(FactorClaim | PasskeyProofClaim) | null> {
    if (dto.passkey === undefined) return this.judge(userId, dto);
    const claim = await this.passkeys.claimForFreshCheck(userId, dto.passkey);
    return claim && { method: 'passkey', take: claim.take, passkeyId: claim.passkey.id, passkeyName: claim.passkey.name };
  }

  /** Whether the code is right for the account's confirmed factor: the claim that uses it up, or null. */
  private async judge(userId: string, input: { code?: string; recoveryCode?: string }): Promise<FactorClaim | null> {
    if (input.recoveryCode !== undefined) {
      const codeHash = hashRecoveryCode(input.recoveryCode);
      if (!(await this.repository.hasUnusedRecoveryCode(userId, codeHash))) return null;
      return { method: 'recovery_code', take: (tx) => this.repository.useRecoveryCode(tx, userId, codeHash) };
    }
    const factor = await this.repository.findTotp(userId);
    if (!factor?.confirmedAt) return null;
    const secret = this.sealer.open(factor.secretSealed);
    if (secret === undefined) {
      this.logger.warn({ userId }, 'A TOTP secret cannot be opened (sealed under another JWT_SECRET?)');
      return null;
    }
    const timeStep = await acceptedTimeStep(secret, input.code!, factor.lastTimeStep === null ? undefined : Number(factor.lastTimeStep));
    if (timeStep === null) return null;
    return { method: 'totp', take: (tx) => this.repository.takeTimeStep(tx, userId, timeStep, true) };
  }
}
