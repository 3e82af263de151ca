import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Seals a secret the server must read back (a share link handed out again, a TOTP secret checked at each sign-in),
 * so a one-way hash cannot do: AES-256-GCM (node:crypto) under a key derived from the service secret with HKDF.
 * Each use names its own HKDF salt and info, so one use's sealed values never open under another's key. A copy
 * of the database alone reveals nothing; changing the service secret makes every sealed value unreadable.
 */
export class SecretSealer {
  private readonly key: Buffer;

  constructor(serviceSecret: string, salt: string, info: string) {
    this.key = Buffer.from(hkdfSync('sha256', serviceSecret, salt, info, 32));
  }

  seal(value: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** The value, or undefined when it cannot be opened (e.g. sealed under another service secret or for another use). */
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
