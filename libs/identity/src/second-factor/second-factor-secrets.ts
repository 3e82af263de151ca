import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomInt } from 'node:crypto';

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
 * Seals TOTP secrets at rest with AES-256-GCM (node:crypto) under a key derived from the service secret with HKDF
 * (the tree's one mechanism, as for question share links): the server must read the secret back to check codes, so
 * a hash cannot do; a copy of the database alone reveals no authenticator. Changing JWT_SECRET makes every enrolled
 * authenticator unreadable (its owner signs in with a recovery code and enrols again).
 */
export class TotpSecretSealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'identity', 'totp-secret-v1', 32));
  }

  seal(value: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** The secret, or undefined when it cannot be opened (e.g. sealed under another service secret). */
  open(sealed: string): string | undefined {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== 'v1' || !iv || !body || !tag) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
