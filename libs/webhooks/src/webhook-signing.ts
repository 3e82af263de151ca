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

/**
 * The three Standard Webhooks headers of one attempt, signed with every given secret (the current one and, during
 * a rotation's 24 h, the previous one): `webhook-signature` then holds one `v1,…` per secret, space-separated.
 */
export function signedWebhookHeaders(eventId: string, timestamp: Date, body: string, secrets: readonly string[]): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(eventId, timestamp, body));
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
