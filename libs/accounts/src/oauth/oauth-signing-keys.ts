import { Injectable } from '@nestjs/common';
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, generateSecret, type JWK, type JWTVerifyGetKey } from 'jose';
import { OAuthAccessRepository } from './oauth-access.repository.js';

/** The access tokens' signature algorithm. */
export const OAUTH_SIGNING_ALG = 'ES256';
const SIGNING_KEY = 'signing';
const COOKIE_KEY = 'cookies';

/** A private JWK without its private part. */
function publicPart({ d: _d, ...rest }: JWK): JWK {
  return rest;
}

/**
 * The authorization server's keys. Its signing key: generated with jose by the first replica that needs
 * it, kept in the database, the same for every replica and every restart. The key never
 * changes at run time, so each process reads it once.
 */
@Injectable()
export class OAuthSigningKeys {
  private key?: Promise<JWK>;
  private verification?: Promise<JWTVerifyGetKey>;

  constructor(private readonly repository: OAuthAccessRepository) {}

  /** The private signing key (JWK with `kid`, `alg`, `use`). */
  privateJwk(): Promise<JWK> {
    this.key ??= this.loadOrCreate().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }

  /** The public keys as a jose key set, for verifying access tokens. */
  verificationKeys(): Promise<JWTVerifyGetKey> {
    this.verification ??= this.privateJwk()
      .then((jwk) => createLocalJWKSet({ keys: [publicPart(jwk)] }))
      .catch((error: unknown) => {
        this.verification = undefined;
        throw error;
      });
    return this.verification;
  }

  /** The secret the authorization server signs its browser cookies with (a symmetric JWK's `k`). */
  async cookieSecret(): Promise<string> {
    const stored = (await this.repository.findKey(COOKIE_KEY)) ?? (await this.repository.storeKeyOnce(COOKIE_KEY, await exportJWK(await generateSecret('HS256', { extractable: true }))));
    return stored.k!;
  }

  private async loadOrCreate(): Promise<JWK> {
    const stored = await this.repository.findKey(SIGNING_KEY);
    if (stored) return stored;
    const { privateKey } = await generateKeyPair(OAUTH_SIGNING_ALG, { extractable: true });
    const jwk = await exportJWK(privateKey);
    const complete: JWK = { ...jwk, alg: OAUTH_SIGNING_ALG, use: 'sig', kid: await calculateJwkThumbprint(jwk) };
    return this.repository.storeKeyOnce(SIGNING_KEY, complete);
  }
}
