import { randomBytes } from 'node:crypto';
import { SecretSealer } from '#libs/common';

const SECRET_PREFIX = 'idsec_';

/**
 * Seals the sites' identity secrets at rest (the server reads them back to verify the hosts' tokens), under the
 * service secret like webhook and TOTP secrets: a copy of the database alone cannot vouch for a reporter.
 */
export function identitySecretSealer(serviceSecret: string): SecretSealer {
  return new SecretSealer(serviceSecret, 'feedback', 'reporter-identity-secret-v1');
}

/** A new identity secret: `idsec_` + 32 random bytes (base64url); the JWT's HS256 key is this whole string. */
export function newIdentitySecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}
