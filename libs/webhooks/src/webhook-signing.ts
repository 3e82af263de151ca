import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SecretSealer } from '#libs/common';

const SECRET_PREFIX = 'whsec_';

/**
 * Seals signing secrets at rest (the worker must read them back to sign), under the service secret like share links
 * and TOTP secrets: a copy of the database alone cannot forge our deliveries. Changing JWT_SECRET leaves every
 * endpoint unable to sign until its secret is rotated.
 */
export function webhookSecretSealer(serviceSecret: string): SecretSealer {
  return new SecretSealer(serviceSecret, 'webhooks', 'webhook-signing-secret-v1');
}

/** A new signing secret, `whsec_` + 32 random bytes in base64 (the Standard Webhooks form). */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** How many endpoints' opened secrets a worker keeps (beyond it, the cache starts over: opening again is only slower). */
const OPENED_SECRETS_KEPT = 10_000;

/**
 * The signers of the sealed secrets a worker delivers with. Opening a sealed secret (an AES-GCM decipher) and
 * decoding it for HMAC cost more than signing itself, and every delivery to an endpoint uses the same one or two
 * secrets, so each sealed value is opened once. Keyed by the sealed value: a rotation seals a new value, so a
 * rotated or removed secret is never found again.
 */
export class WebhookSigners {
  private readonly opened = new Map<string, Webhook | null>();

  constructor(private readonly sealer: SecretSealer) {}

  /** The signer of a sealed secret, or undefined when it cannot be opened (sealed under another service secret). */
  signerOf(sealed: string): Webhook | undefined {
    let signer = this.opened.get(sealed);
    if (signer === undefined) {
      const secret = this.sealer.open(sealed);
      signer = secret === undefined ? null : new Webhook(secret);
      if (this.opened.size >= OPENED_SECRETS_KEPT) this.opened.clear();
      this.opened.set(sealed, signer);
    }
    return signer ?? undefined;
  }
}

/**
 * The three Standard Webhooks headers of one attempt, signed by every given signer (the current secret's and, during
 * a rotation's 24 h, the previous one's): `webhook-signature` then holds one `v1,…` per secret, space-separated.
 */
export function signedWebhookHeaders(eventId: string, timestamp: Date, body: string, signers: readonly Webhook[]): Record<string, string> {
  const signatures = signers.map((signer) => signer.sign(eventId, timestamp, body));
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
