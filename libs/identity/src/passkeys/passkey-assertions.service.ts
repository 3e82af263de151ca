import { Inject, Injectable, Logger } from '@nestjs/common';
import { generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON, type AuthenticatorTransport } from '@simplewebauthn/server';
import { AppException, ErrorCode } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { Transaction } from '#libs/database';
import type { PasskeyAssertionDto, PasskeyOptionsDto } from './dto/passkey.dto.js';
import { PasskeysRepository, type PasskeyRow } from './passkeys.repository.js';

/** How long the options of a fresh factor check by passkey can be answered, once. */
export const PASSKEY_CHECK_TTL_SECONDS = 5 * 60;

/** The challenge a browser's clientDataJSON says it signed, or undefined when it is not readable. */
export function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const challenge = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 128 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/** A passkey assertion that checked out for a fresh factor check, to be recorded inside the caller's transaction (false: a concurrent use went first). */
export interface PasskeyClaim {
  passkey: PasskeyRow;
  take: (tx: Transaction) => Promise<boolean>;
}

/**
 * Judging passkey assertions (a signature over a challenge we handed out, at this relying party), shared by the passkey
 * sign-ins (PasskeysService) and the fresh factor check of a signed-in account (SecondFactorService), through
 * PasskeyAssertionsModule, which both import.
 *
 * A fresh check's challenge is a `sign_in` challenge bound to the account: passwordless sign-in only takes challenges
 * bound to nobody, so it can only be answered here, by one of the account's own passkeys, once.
 */
@Injectable()
export class PasskeyAssertions {
  private readonly logger = new Logger(PasskeyAssertions.name);
  private readonly rpId: string;
  private readonly origin: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: PasskeysRepository,
  ) {
    this.rpId = config.webauthn.rpId;
    this.origin = config.webauthn.origin;
  }

  /** Options for a fresh factor check by one of the signed-in account's passkeys (404 NOT_FOUND without one). */
  async freshCheckOptions(userId: string): Promise<PasskeyOptionsDto> {
    const passkeys = await this.repository.list(userId);
    if (passkeys.length === 0) throw new AppException(ErrorCode.NOT_FOUND, 'This account has no passkey: use a code');
    const options = await generateAuthenticationOptions({
      rpID: this.rpId,
      allowCredentials: passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports as AuthenticatorTransport[] })),
      userVerification: 'preferred',
      timeout: PASSKEY_CHECK_TTL_SECONDS * 1000,
    });
    await this.repository.createChallenge(userId, 'sign_in', options.challenge, PASSKEY_CHECK_TTL_SECONDS);
    return { options: options as unknown as Record<string, unknown>, expiresIn: PASSKEY_CHECK_TTL_SECONDS };
  }

  /**
   * The fresh-check claim of an assertion: one of the account's passkeys signing a live challenge freshCheckOptions
   * handed out to it (used up here whatever the outcome), or null.
   */
  async claimForFreshCheck(userId: string, assertion: PasskeyAssertionDto): Promise<PasskeyClaim | null> {
    const challenge = challengeOf(assertion.response.clientDataJSON);
    if (challenge === undefined || !(await this.repository.consumeChallenge(userId, 'sign_in', challenge))) return null;
    const passkey = await this.repository.findByCredentialId(assertion.id);
    if (!passkey || passkey.userId !== userId) return null;
    const newCount = await this.judge(passkey, assertion, challenge, false);
    if (newCount === null) return null;
    return { passkey, take: (tx) => this.repository.recordUse(tx, userId, passkey.id, passkey.signCount, newCount) };
  }

  /** Whether the assertion is the passkey's signature over `expectedChallenge` at this relying party: its new counter, or null. */
  async judge(passkey: PasskeyRow, assertion: PasskeyAssertionDto, expectedChallenge: string, requireUserVerification: boolean): Promise<number | null> {
    try {
      const { verified, authenticationInfo } = await verifyAuthenticationResponse({
        response: assertion as unknown as AuthenticationResponseJSON,
        expectedChallenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(passkey.publicKey),
          counter: Number(passkey.signCount),
          transports: passkey.transports as AuthenticatorTransport[],
        },
        requireUserVerification,
      });
      return verified ? authenticationInfo.newCounter : null;
    } catch (error) {
      this.logger.debug({ passkeyId: passkey.id, err: (error as Error).message }, 'A passkey assertion was refused');
      return null;
    }
  }
}
