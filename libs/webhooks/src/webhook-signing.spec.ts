import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { SecretSealer } from '#libs/common';
import { newWebhookSecret, signedWebhookHeaders, webhookSecretSealer, WebhookSigners } from './webhook-signing.js';

/** A sealer that counts how often a sealed value is opened. */
function countingSealer(): { sealer: SecretSealer; opened: () => number } {
  const sealer = webhookSecretSealer('a-service-secret-of-enough-length-for-tests');
  let opened = 0;
  const open = sealer.open.bind(sealer);
  sealer.open = (sealed: string) => {
    opened++;
    return open(sealed);
  };
  return { sealer, opened: () => opened };
}

describe('WebhookSigners', () => {
  it('opens each sealed secret once, however many deliveries it signs', () => {
    const { sealer, opened } = countingSealer();
    const signers = new WebhookSigners(sealer);
    const sealed = sealer.seal(newWebhookSecret());
    for (let i = 0; i < 5; i++) expect(signers.signerOf(sealed)).toBeDefined();
    expect(opened()).toBe(1);
  });

  it('signs with the secret that was sealed, and with the new one after a rotation seals another', () => {
    const { sealer } = countingSealer();
    const signers = new WebhookSigners(sealer);
    const [before, after] = [newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ type: 'todo.created', data: {} });
    const timestamp = new Date();
    const headers = signedWebhookHeaders('evt_1', timestamp, body, [signers.signerOf(sealer.seal(after))!, signers.signerOf(sealer.seal(before))!]);
    // Each secret verifies on its own: the header carries one signature per secret.
    expect(new Webhook(after).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(before).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('answers undefined for a secret sealed under another service secret, and remembers that too', () => {
    const { sealer, opened } = countingSealer();
    const signers = new WebhookSigners(sealer);
    const foreign = webhookSecretSealer('another-service-secret-of-enough-length').seal(newWebhookSecret());
    expect(signers.signerOf(foreign)).toBeUndefined();
    expect(signers.signerOf(foreign)).toBeUndefined();
    expect(opened()).toBe(1);
  });
});
