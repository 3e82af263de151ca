import { createHash, randomBytes, randomInt } from 'node:crypto';
import { SecretSealer } from '#libs/common';

/** How many recovery codes an account holds; each works once. */
const RECOVERY_CODE_COUNT = 10;
/** Lower-case letters and digits without look-alikes (0/o, 1/l/i). */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** Two groups of five: about 49 bits each code. */
const RECOVERY_GROUP = 5;

/** Ten fresh recovery codes, written `xxxxx-xxxxx`. */
export function generateRecoveryCodes(): string[] {
  const group = () => Array.from({ length: RECOVERY_GROUP }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => `${group()}-${group()}`);
}

/** The stored form of a recovery code: case, spaces and dashes do not matter when it is typed back. */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(code.toLowerCase().replace(/[\s-]/g, '')).digest('hex');
}

/** A sign-in challenge token: 32 random bytes; only its digest is stored. */
export function generateChallengeToken(): string {
  return `mfa_${randomBytes(32).toString('base64url')}`;
}

export function hashChallengeToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Seals TOTP secrets at rest: the server must read the secret back to check codes. Changing JWT_SECRET makes every
 * enrolled authenticator unreadable (its owner signs in with a recovery code and enrols again).
 */
export function totpSecretSealer(serviceSecret: string): SecretSealer {
  return new SecretSealer(serviceSecret, 'identity', 'totp-secret-v1');
}
