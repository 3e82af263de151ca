import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** Lifetime of a refresh token (decisions.md: 30 days); each rotation starts a new one. */
export const REFRESH_TOKEN_TTL_DAYS = 30;

/**
 * How long a refresh whose answer was lost may be retried with the same Idempotency-Key
 * and receive the same answer (as long as the new token has not been used yet).
 */
export const REFRESH_RETRY_GRACE_SECONDS = 30;

/** An opaque refresh token: 256 random bits, base64url (43 characters). */
export function generateRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Refresh tokens are high-entropy, so a plain SHA-256 is enough to store them. */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function hashRetryKey(key: string): string {
  return createHash('sha256').update(`refresh-retry:${key}`, 'utf8').digest('hex');
}

function retryKeyMaterial(oldToken: string, retryKey: string, salt: Buffer): Buffer {
  const ikm = Buffer.concat([Buffer.from(oldToken, 'utf8'), Buffer.from([0]), Buffer.from(retryKey, 'utf8')]);
  return Buffer.from(hkdfSync('sha256', ikm, salt, 'refresh-token-retry', 32));
}

/**
 * Seals the successor token under a key derived from the token it replaces and the
 * client's Idempotency-Key, neither of which is stored: only a client holding both can
 * read it back (to repeat a lost answer); a copy of the database cannot.
 */
export function sealSuccessor(oldToken: string, retryKey: string, successor: string): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', retryKeyMaterial(oldToken, retryKey, salt), iv);
  const sealed = Buffer.concat([cipher.update(successor, 'utf8'), cipher.final()]);
  return Buffer.concat([salt, iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The successor sealed by sealSuccessor, or undefined when the token or key does not open it. */
export function openSuccessor(oldToken: string, retryKey: string, sealedText: string): string | undefined {
  try {
    const raw = Buffer.from(sealedText, 'base64url');
    const salt = raw.subarray(0, 16);
    const iv = raw.subarray(16, 28);
    const tag = raw.subarray(28, 44);
    const decipher = createDecipheriv('aes-256-gcm', retryKeyMaterial(oldToken, retryKey, salt), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(raw.subarray(44)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
