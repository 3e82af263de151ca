import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** site id (16 bytes) + recipient digest (16 bytes) + MAC (16 bytes), base64url: 64 characters. */
const UNSUBSCRIBE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{64}$/;

export interface UnsubscribeTarget {
  siteId: string;
  /** canonicalEmailDigest of the recipient (32 hex characters): what the suppression stores, never the address. */
  recipientDigest: string;
}

/**
 * The one-click unsubscribe token of a notification: which site, which recipient, signed with
 * an HMAC under a key derived from the service secret (HKDF, its own purpose). Nothing is stored
 * per token; a forged or altered one fails the MAC (128 bits), so it cannot be guessed, and it
 * carries only a digest of the address, not the address.
 */
export class UnsubscribeTokenCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'feedback-export', 'question-mail-unsubscribe-v1', 32));
  }

  seal(target: UnsubscribeTarget): string {
    const body = Buffer.concat([Buffer.from(target.siteId.replace(/-/g, ''), 'hex'), Buffer.from(target.recipientDigest, 'hex')]);
    return Buffer.concat([body, this.mac(body)]).toString('base64url');
  }

  /** The target, or undefined for anything not sealed here. */
  open(token: string): UnsubscribeTarget | undefined {
    if (!UNSUBSCRIBE_TOKEN_PATTERN.test(token)) return undefined;
    const bytes = Buffer.from(token, 'base64url');
    if (bytes.length !== 48) return undefined;
    const body = bytes.subarray(0, 32);
    if (!timingSafeEqual(bytes.subarray(32), this.mac(body))) return undefined;
    const hex = body.subarray(0, 16).toString('hex');
    const siteId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    return { siteId, recipientDigest: body.subarray(16).toString('hex') };
  }

  private mac(body: Buffer): Buffer {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, 16);
  }
}
