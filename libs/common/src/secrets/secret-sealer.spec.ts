import { describe, expect, it } from '@jest/globals';
import { SecretSealer } from './secret-sealer.js';

const SECRET = 'a-service-secret-of-enough-length-0123456789';

describe('SecretSealer', () => {
  it('opens what it sealed, with a fresh IV each time', () => {
    const sealer = new SecretSealer(SECRET, 'app', 'use-v1');
    const [first, second] = [sealer.seal('value'), sealer.seal('value')];
    expect(first).not.toBe(second);
    expect([sealer.open(first), sealer.open(second)]).toEqual(['value', 'value']);
  });

  it('does not open a value sealed for another use or under another service secret, nor a tampered one', () => {
    const sealed = new SecretSealer(SECRET, 'app', 'use-v1').seal('value');
    expect(new SecretSealer(SECRET, 'app', 'other-use-v1').open(sealed)).toBeUndefined();
    expect(new SecretSealer(SECRET, 'other-app', 'use-v1').open(sealed)).toBeUndefined();
    expect(new SecretSealer(`${SECRET}!`, 'app', 'use-v1').open(sealed)).toBeUndefined();
    const [version, iv, body, tag] = sealed.split('.');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(new SecretSealer(SECRET, 'app', 'use-v1').open([version, iv, flipped.toString('base64url'), tag].join('.'))).toBeUndefined();
    expect(new SecretSealer(SECRET, 'app', 'use-v1').open('not-sealed')).toBeUndefined();
  });
});
