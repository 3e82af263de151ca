import { Injectable } from '@nestjs/common';
import { calculateJwkThumbprint, createLocalJWKSet, errors, exportJWK, generateKeyPair, generateSecret, type JWK, type JWTVerifyGetKey } from 'jose';
import { OAuthAccessRepository } from './oauth-access.repository.js';

/** The access tokens' signature algorithm. */
export const OAUTH_SIGNING_ALG = 'ES256';
const COOKIE_KEY = 'cookies';

interface VerificationKeys {
  keys: JWTVerifyGetKey;
  kids: Set<string>;
}

/** A private JWK without its private part. */
function publicPart({ d: _d, ...rest }: JWK): JWK {
  return rest;
}

/**
 * The authorization server's keys, in the database, the same for every replica. Signing keys
 * (ES256, generated with jose): the newest signs, the older ones still verify until retired, so a
 * key can be rotated without failing the tokens already issued (see OAuthSigningKeyRotation).
 */
@Injectable()
export class OAuthSigningKeys {
  private verification?: Promise<VerificationKeys>;

  constructor(private readonly repository: OAuthAccessRepository) {}

  /** The private signing keys (JWKs with `kid`, `alg`, `use`), newest first; the first replica to ask creates the first key. */
  async privateJwks(): Promise<JWK[]> {
    const stored = await this.repository.signingKeys();
    if (stored.length > 0) return stored;
    // "Unless a key younger than a century exists": unless any exists.
    await this.rotateIfOlderThan(100 * 365 * 24 * 60 * 60);
    return this.repository.signingKeys();
  }

  /**
   * Adds a new signing key if the newest is older than `maxAgeSeconds` (or there is none); one
   * replica adds it even when several ask at once. Answers whether a key was added.
   */
  async rotateIfOlderThan(maxAgeSeconds: number): Promise<boolean> {
    const { privateKey } = await generateKeyPair(OAUTH_SIGNING_ALG, { extractable: true });
    const jwk = await exportJWK(privateKey);
    const complete: JWK = { ...jwk, alg: OAUTH_SIGNING_ALG, use: 'sig', kid: await calculateJwkThumbprint(jwk) };
    return this.repository.addSigningKeyUnlessYounger(complete, maxAgeSeconds);
  }

  /** The kids of the stored signing keys, newest first. */
  storedKeyIds(): Promise<string[]> {
    return this.repository.signingKeyIds();
  }

  /** Deletes the keys whose successor has signed for longer than `seconds` (every token they signed has expired). */
  retireKeysSupersededFor(seconds: number): Promise<number> {
    return this.repository.deleteSigningKeysSupersededFor(seconds);
  }

  /**
   * The public keys as a jose key resolver, for verifying access tokens. A token whose kid is not
   * among them (signed by a key another replica has just added) makes the keys be read again; misses
   * arriving together share that one read.
   */
  verificationKeys(): Promise<JWTVerifyGetKey> {
    return Promise.resolve(async (header, token) => {
      let current = await this.loadVerification();
      if (header.kid !== undefined && !current.kids.has(header.kid)) current = await this.reloadVerification(current);
      if (header.kid !== undefined && !current.kids.has(header.kid)) throw new errors.JWKSNoMatchingKey();
      return current.keys(header, token);
    });
  }

  /** Drops the verification keys held in memory (after a key was retired): the next token reads them again. */
  forgetVerificationKeys(): void {
    this.verification = undefined;
  }

  /** The secret the authorization server signs its browser cookies with (a symmetric JWK's `k`). */
  async cookieSecret(): Promise<string> {
    const stored = (await this.repository.findKey(COOKIE_KEY)) ?? (await this.repository.storeKeyOnce(COOKIE_KEY, await exportJWK(await generateSecret('HS256', { extractable: true }))));
    return stored.k!;
  }

  private loadVerification(): Promise<VerificationKeys> {
    this.verification ??= this.privateJwks()
      .then((jwks) => ({ keys: createLocalJWKSet({ keys: jwks.map(publicPart) }), kids: new Set(jwks.map((jwk) => jwk.kid!)) }))
      .catch((error: unknown) => {
        this.verification = undefined;
        throw error;
      });
    return this.verification;
  }

  /** Reads the keys again unless another caller already replaced `stale`. */
  private async reloadVerification(stale: VerificationKeys): Promise<VerificationKeys> {
    if (this.verification && (await this.verification) === stale) this.verification = undefined;
    return this.loadVerification();
  }
}
