import { describe, expect, it } from '@jest/globals';
import { generateRefreshToken, hashRefreshToken, openSuccessor, sealSuccessor } from './refresh-token.js';

describe('refresh tokens', () => {
  it('are 256-bit base64url strings, unique, hashed to 64 hex characters', () => {
    const tokens = new Set(Array.from({ length: 500 }, () => generateRefreshToken()));
    expect(tokens.size).toBe(500);
    for (const token of [...tokens].slice(0, 5)) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      expect(hashRefreshToken(token)).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('opens a sealed successor only with the same old token and retry key', () => {
    const old = generateRefreshToken();
    const next = generateRefreshToken();
    const sealed = sealSuccessor(old, 'key-1', next);
    expect(sealed).not.toContain(next);
    expect(openSuccessor(old, 'key-1', sealed)).toBe(next);
    expect(openSuccessor(old, 'key-2', sealed)).toBeUndefined();
    expect(openSuccessor(generateRefreshToken(), 'key-1', sealed)).toBeUndefined();
    expect(openSuccessor(old, 'key-1', sealed.slice(0, -4) + 'AAAA')).toBeUndefined();
  });
});
