import { describe, expect, it } from '@jest/globals';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key.format.js';

describe('API key format', () => {
  it('is tdk_ + 32 base62 + 6-character checksum, with a 12-character prefix', () => {
    const { key, prefix, hash } = generateApiKey();
    expect(key).toMatch(/^tdk_[0-9A-Za-z]{38}$/);
    expect(prefix).toBe(key.slice(0, 12));
    expect(hash).toBe(hashApiKey(key));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('rejects a key with one character changed (checksum)', () => {
    const { key } = generateApiKey();
    const i = 10;
    const changed = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    expect(isWellFormedApiKey(changed)).toBe(false);
  });

  it('rejects JWTs, other prefixes and wrong lengths', () => {
    expect(isWellFormedApiKey('eyJhbGciOiJIUzI1NiJ9.e30.x')).toBe(false);
    expect(isWellFormedApiKey('sk_' + 'a'.repeat(38))).toBe(false);
    expect(isWellFormedApiKey(generateApiKey().key + 'a')).toBe(false);
  });

  it('never repeats across many keys', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey().key));
    expect(keys.size).toBe(2000);
  });
});
