import { Injectable } from '@nestjs/common';
import { calculateJwkThumbprint, createLocalJWKSet, errors, exportJWK, generateKeyPair, generateSecret, type JWK, type JWTVerifyGetKey } from 'jose';
import { OAuthAccessRepository } from './oauth-access.repository.js';

/** The access tokens' signature algorithm. */
export const OAUTH_SIGNING_ALG = 'ES256' as const;
/**
 * ID tokens' algorithms: RS256 first, OpenID Connect's default for a client that names none (and
 * one Discovery 1.0 requires an OpenID Provider to offer), ES256 for a client that asks for it.
 */
export const OAUTH_ID_TOKEN_SIGNING_ALGS = ['RS256', OAUTH_SIGNING_ALG] as const;
/** One signing key of each algorithm is kept (and rotated) at a time. */
const SIGNING_KEY_ALGS = [OAUTH_SIGNING_ALG, 'RS256'] as const;
type SigningKeyAlg = (typeof SIGNING_KEY_ALGS)[number];
/** "Unless a key younger than a century exists": unless any exists. */
const CENTURY_SECONDS = 100 * 365 * 24 * 60 * 60;
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
 * (generated with jose): ES256 for access tokens (and ID tokens that ask for it), RS256 for other
 * ID tokens. Per algorithm the newest signs, the older ones still verify until retired, so a key
 * can be rotated without failing the tokens already issued (see OAuthSigningKeyRotation).
 */
@Injectable()
export class OAuthSigningKeys {
  private verification?: Promise<VerificationKeys>;

  constructor(private readonly repository: OAuthAccessRepository) {}

  /**
   * The private signing keys (JWKs with `kid`, `alg`, `use`), newest first, at least one per
   * algorithm: the first replica to ask creates a missing one.
   */
  async privateJwks(): Promise<JWK[]> {
    const stored = await this.repository.signingKeys();
    const missing = SIGNING_KEY_ALGS.filter((alg) => !stored.some((jwk) => jwk.alg === alg));
    if (missing.length === 0) return stored;
    for (const alg of missing) await this.addKeyUnlessYounger(alg, CENTURY_SECONDS);
    return this.repository.signingKeys();
  }

  /**
   * Adds a new signing key for each algorithm whose newest key is older than `maxAgeSeconds` (or
   * that has none); one replica adds it even when several ask at once. Answers whether a key was added.
   */
  async rotateIfOlderThan(maxAgeSeconds: number): Promise<boolean> {
    let added = false;
    for (const alg of SIGNING_KEY_ALGS) if (await this.addKeyUnlessYounger(alg, maxAgeSeconds)) added = true;
    return added;
  }

  private async addKeyUnlessYounger(alg: SigningKeyAlg, maxAgeSeconds: number): Promise<boolean> {
    // Generating an RSA key costs tens of milliseconds: only when one is due (checked again under the lock).
    if (await this.repository.hasSigningKeyYoungerThan(alg, maxAgeSeconds)) return false;
    const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: 2048 } : {}) });
    const jwk = await exportJWK(privateKey);
    const complete: JWK = { ...jwk, alg, use: 'sig', kid: await calculateJwkThumbprint(jwk) };
    return this.repository.addSigningKeyUnlessYounger(complete, maxAgeSeconds);
  }

  /** The kids of the stored signing keys, newest first. */
  storedKeyIds(): Promise<string[]> {
    return this.repository.signingKeyIds();
  }

  /** Deletes the keys whose successor (same algorithm) has signed for longer than `seconds` (every token they signed has expired). */
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
