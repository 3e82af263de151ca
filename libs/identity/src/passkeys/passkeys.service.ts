import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyRegistrationResponse,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { AppException, ErrorCode, validationException } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { requireConfirmedEmail } from '../accounts/confirmed-email.js';
import { PasswordHasher } from '../accounts/password-hasher.service.js';
import { SecurityActivityService } from '../security-activity/security-activity.service.js';
import type { MfaVerifyDto, FreshFactorCheckDto } from '../second-factor/dto/second-factor.dto.js';
import { SecondFactorRateLimiter } from '../second-factor/second-factor-rate-limiter.service.js';
import { SecondFactorService } from '../second-factor/second-factor.service.js';
import type { ClientInfo } from '../sessions/sessions.service.js';
import {
  toPasskeyDto,
  type MfaPasskeyOptionsDto,
  type PasskeyAssertionDto,
  type PasskeyDto,
  type PasskeyListDto,
  type PasskeyOptionsDto,
  type PasskeyRegisteredDto,
  type PasskeyRemovedDto,
  type PasskeySignInDto,
  type RegisterPasskeyDto,
  type RenamePasskeyDto,
  type StartPasskeyRegistrationDto,
} from './dto/passkey.dto.js';
import { challengeOf, PasskeyAssertions } from './passkey-assertions.service.js';
import { PasskeysRepository } from './passkeys.repository.js';
import { UsersService } from '../accounts/users.service.js';

/** How long registration and passwordless sign-in options (their challenge) can be answered, once. */
export const PASSKEY_CEREMONY_TTL_SECONDS = 5 * 60;
/** How many passkeys one account holds at most. */
export const PASSKEYS_PER_ACCOUNT = 10;

/** The WebAuthn user handle of an account: its id's bytes (no e-mail, nothing personal). */
function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId, 'utf8'));
}

function notAccepted(headers?: Record<string, string>): AppException {
  return new AppException(ErrorCode.INVALID_CREDENTIALS, 'The passkey was not accepted: ask for new options and try again', undefined, headers);
}

function invalidChallenge(headers?: Record<string, string>): AppException {
  return new AppException(ErrorCode.INVALID_TOKEN, 'The sign-in challenge is invalid, expired or already used: sign in again', undefined, headers);
}

function invalidRegistration(reason: string): AppException {
  return validationException([{ field: 'credential', messages: [reason] }], `The passkey cannot be registered: ${reason}`);
}

/**
 * Passkeys (WebAuthn through @simplewebauthn/server): registration (after the password, on a confirmed address, as an
 * authenticator's enrolment), listing, renaming, removal (after a fresh factor check, as disabling the authenticator),
 * their use as the second factor of a sign-in that answered MFA_REQUIRED, and passwordless sign-in with a
 * discoverable credential. Every assertion is counted like a second-factor code first (SecondFactorRateLimiter), and
 * each challenge is answered once. AuthService issues the tokens once a sign-in passed.
 */
@Injectable()
export class PasskeysService {
  private readonly rpId: string;
  private readonly origin: string;
  private readonly rpName: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: PasskeysRepository,
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly secondFactor: SecondFactorService,
    private readonly limiter: SecondFactorRateLimiter,
    private readonly activity: SecurityActivityService,
    private readonly assertions: PasskeyAssertions,
  ) {
    this.rpId = config.webauthn.rpId;
    this.origin = config.webauthn.origin;
    this.rpName = URL.parse(config.publicBaseUrl)?.host || 'todo-api';
  }

  async list(userId: string): Promise<PasskeyListDto> {
    return { passkeys: await this.allOf(userId) };
  }

  /** Every passkey of the account (name and dates, never a key), for the export. */
  async allOf(userId: string): Promise<PasskeyDto[]> {
    return (await this.repository.list(userId)).map(toPasskeyDto);
  }

  async registrationOptions(userId: string, dto: StartPasskeyRegistrationDto): Promise<PasskeyOptionsDto> {
    const user = await this.users.findById(userId);
    if (!user) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    if (!(await this.hasher.verify(dto.password, user.passwordHash))) throw new AppException(ErrorCode.INVALID_CREDENTIALS, 'The password is wrong');
    requireConfirmedEmail(user);
    const existing = await this.repository.list(userId);
    if (existing.length >= PASSKEYS_PER_ACCOUNT) throw new AppException(ErrorCode.CONFLICT, `An account holds at most ${PASSKEYS_PER_ACCOUNT} passkeys: remove one first`);
    const options = await generateRegistrationOptions({
      rpName: this.rpName,
      rpID: this.rpId,
      userName: user.email,
      userDisplayName: user.email,
      userID: userHandleOf(userId),
      timeout: PASSKEY_CEREMONY_TTL_SECONDS * 1000,
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports as AuthenticatorTransport[] })),
      // Discoverable (a passwordless sign-in names no account) and verified (a PIN or biometric): a passkey alone signs in.
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    await this.repository.createChallenge(userId, 'registration', options.challenge, PASSKEY_CEREMONY_TTL_SECONDS);
    return { options: options as unknown as Record<string, unknown>, expiresIn: PASSKEY_CEREMONY_TTL_SECONDS };
  }

  async register(userId: string, dto: RegisterPasskeyDto, client: ClientInfo): Promise<PasskeyRegisteredDto> {
    const challenge = challengeOf(dto.credential.response.clientDataJSON);
    if (!challenge || !(await this.repository.consumeChallenge(userId, 'registration', challenge))) {
      throw invalidRegistration('its options are unknown, expired or already used: ask for new ones');
    }
    let verification;
    try {
      verification = await verifyRegistrationResponse({
        response: dto.credential as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        requireUserVerification: true,
      });
    } catch (error) {
      throw invalidRegistration((error as Error).message);
    }
    if (!verification.verified) throw invalidRegistration('the attestation did not verify');
    const { credential } = verification.registrationInfo;
    const name = dto.name?.trim() || `Passkey ${new Date().toISOString().slice(0, 10)}`;
    const firstFactor = !(await this.secondFactor.isEnabled(userId));
    return this.repository.transaction(async (tx) => {
      const row = await this.repository.insert(tx, userId, {
        credentialId: credential.id,
        publicKey: credential.publicKey,
        signCount: credential.counter,
        transports: credential.transports ?? [],
        name,
      });
      if (!row) throw new AppException(ErrorCode.CONFLICT, 'This passkey is registered already');
      const recoveryCodes = firstFactor ? await this.secondFactor.issueRecoveryCodes(tx, userId) : null;
      await this.activity.record(tx, userId, 'passkey_added', { client, details: { passkeyId: row.id, name } });
      if (firstFactor) await this.activity.record(tx, userId, 'mfa_enabled', { client, details: { method: 'passkey' } });
      return { passkey: toPasskeyDto(row), recoveryCodes };
    });
  }

  async rename(userId: string, id: string, dto: RenamePasskeyDto): Promise<PasskeyDto> {
    const row = await this.repository.rename(userId, id, dto.name.trim());
    if (!row) throw new AppException(ErrorCode.NOT_FOUND, 'Passkey not found');
    return toPasskeyDto(row);
  }

  async remove(userId: string, id: string, dto: FreshFactorCheckDto, client: ClientInfo): Promise<PasskeyRemovedDto> {
    if (!(await this.repository.find(userId, id))) throw new AppException(ErrorCode.NOT_FOUND, 'Passkey not found');
    await this.secondFactor.withFreshCheck(userId, dto, client, 'passkey_removal', async (tx) => {
      const removed = await this.repository.remove(tx, userId, id);
      if (!removed) throw new AppException(ErrorCode.NOT_FOUND, 'Passkey not found');
      await this.secondFactor.afterFactorRemoved(tx, userId);
      await this.activity.record(tx, userId, 'passkey_removed', { client, details: { passkeyId: removed.id, name: removed.name } });
    });
    return { removed: true, passkeys: (await this.repository.list(userId)).length };
  }

  /** Options for answering a sign-in challenge (401 MFA_REQUIRED) with one of the account's passkeys. */
  async mfaOptions(dto: MfaPasskeyOptionsDto): Promise<PasskeyOptionsDto> {
    const open = await this.secondFactor.openChallenge(dto.challengeToken);
    if (!open) throw invalidChallenge();
    const passkeys = await this.repository.list(open.userId);
    if (passkeys.length === 0) throw new AppException(ErrorCode.NOT_FOUND, 'This account has no passkey: use a code');
    const options = await generateAuthenticationOptions({
      rpID: this.rpId,
      allowCredentials: passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports as AuthenticatorTransport[] })),
      userVerification: 'preferred',
      timeout: open.expiresIn * 1000,
    });
    if (!(await this.secondFactor.attachWebAuthnChallenge(open, options.challenge))) throw invalidChallenge();
    return { options: options as unknown as Record<string, unknown>, expiresIn: open.expiresIn };
  }

  /**
   * Passes a sign-in challenge with a passkey's signature over the WebAuthn challenge mfaOptions set on it: answers the
   * account (one transaction ends the challenge and records the use: of two requests with one signature, one passes).
   */
  async passChallenge(dto: MfaVerifyDto & { passkey: PasskeyAssertionDto }, client: ClientInfo): Promise<{ userId: string; method: 'passkey' }> {
    if (dto.code !== undefined || dto.recoveryCode !== undefined) {
      throw validationException([{ field: 'passkey', messages: ['give exactly one of code, recoveryCode or passkey'] }], 'Give exactly one of code, recoveryCode or passkey');
    }
    const open = await this.secondFactor.openChallenge(dto.challengeToken);
    const attempt = await this.limiter.begin(client.ipAddress, open?.userId ?? null);
    if (!open) throw invalidChallenge(attempt.headers);
    const { userId, webauthnChallenge } = open;
    const passkey = await this.repository.findByCredentialId(dto.passkey.id);
    const newCount = webauthnChallenge && passkey?.userId === userId ? await this.assertions.judge(passkey, dto.passkey, webauthnChallenge, false) : null;
    if (newCount === null || !webauthnChallenge || !passkey) {
      void this.activity.recordAfter(userId, 'mfa_challenge_failed', { client, details: { context: 'sign_in', method: 'passkey' } });
      throw notAccepted(attempt.headers);
    }
    await this.repository.transaction(async (tx) => {
      if (!(await this.secondFactor.endChallenge(tx, { ...open, webauthnChallenge }))) throw invalidChallenge(attempt.headers);
      if (!(await this.repository.recordUse(tx, userId, passkey.id, passkey.signCount, newCount))) throw notAccepted(attempt.headers);
      await this.activity.record(tx, userId, 'passkey_used', { client, details: { context: 'sign_in', passkeyId: passkey.id, name: passkey.name } });
    });
    await attempt.succeeded();
    return { userId, method: 'passkey' };
  }

  /** Options for a passwordless sign-in: any discoverable passkey of this service, verified by its holder. */
  async signInOptions(): Promise<PasskeyOptionsDto> {
    const options = await generateAuthenticationOptions({ rpID: this.rpId, userVerification: 'required', timeout: PASSKEY_CEREMONY_TTL_SECONDS * 1000 });
    await this.repository.createChallenge(null, 'sign_in', options.challenge, PASSKEY_CEREMONY_TTL_SECONDS);
    return { options: options as unknown as Record<string, unknown>, expiresIn: PASSKEY_CEREMONY_TTL_SECONDS };
  }

  /**
   * A passwordless sign-in: the signature of a passkey (its holder verified) over a challenge signInOptions handed out,
   * used up here whatever the outcome. Answers the passkey's account. Every refusal is the same 401 INVALID_CREDENTIALS,
   * counted alike (an unknown credential under a budget of its own, as an account's), so nothing tells whether a
   * credential is registered.
   */
  async passwordless(dto: PasskeySignInDto, client: ClientInfo): Promise<string> {
    const { credential } = dto;
    const passkey = await this.repository.findByCredentialId(credential.id);
    const counted = passkey?.userId ?? `unknown-credential:${createHash('sha256').update(credential.id).digest('hex')}`;
    const attempt = await this.limiter.begin(client.ipAddress, counted);
    const challenge = challengeOf(credential.response.clientDataJSON);
    const challengeTaken = challenge !== undefined && (await this.repository.consumeChallenge(null, 'sign_in', challenge));
    const handleMatches = credential.response.userHandle === undefined || (passkey && credential.response.userHandle === Buffer.from(userHandleOf(passkey.userId)).toString('base64url'));
    const newCount = challengeTaken && passkey && handleMatches ? await this.assertions.judge(passkey, credential, challenge, true) : null;
    if (newCount === null || !passkey) {
      if (passkey) void this.activity.recordAfter(passkey.userId, 'sign_in_failed', { client, details: { method: 'passkey' } });
      throw notAccepted(attempt.headers);
    }
    await this.repository.transaction(async (tx) => {
      if (!(await this.repository.recordUse(tx, passkey.userId, passkey.id, passkey.signCount, newCount))) throw notAccepted(attempt.headers);
      await this.activity.record(tx, passkey.userId, 'passkey_used', { client, details: { context: 'passwordless', passkeyId: passkey.id, name: passkey.name } });
    });
    await attempt.succeeded();
    return passkey.userId;
  }

  /** Options for a fresh factor check by one of the account's passkeys (then its assertion as `passkey` of the checked request). */
  freshCheckOptions(userId: string): Promise<PasskeyOptionsDto> {
    return this.assertions.freshCheckOptions(userId);
  }
}
