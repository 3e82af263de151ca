import { describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import { verifyReporterToken } from './reporter-identity.js';

const SECRET = 'idsec_unit-test-secret-unit-test-secret-0001';
const NOW = new Date('2026-11-27T12:00:00Z');
const at = (seconds: number) => Math.floor(NOW.getTime() / 1000) + seconds;

function sign(claims: Record<string, unknown>, exp: number | null = at(600)): Promise<string> {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(at(0));
  if (exp !== null) jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(SECRET));
}

const refusal = (promise: Promise<unknown>) => promise.then(() => 'accepted', (error: { code?: string; message: string }) => `${error.code}: ${error.message}`);

describe('verifyReporterToken', () => {
  it('answers only the three reporter fields, email and name when present', async () => {
    await expect(verifyReporterToken(await sign({ sub: 'u1', email: 'ada@example.com', name: 'Ada', admin: true }), SECRET, NOW)).resolves.toEqual({ id: 'u1', email: 'ada@example.com', name: 'Ada' });
    await expect(verifyReporterToken(await sign({ sub: 'u2' }), SECRET, NOW)).resolves.toEqual({ id: 'u2' });
  });

  it('bounds exp: required, not past, at most 24 h ahead (the edge included)', async () => {
    await expect(verifyReporterToken(await sign({ sub: 'u1' }, at(24 * 3600)), SECRET, NOW)).resolves.toEqual({ id: 'u1' });
    await expect(refusal(verifyReporterToken(await sign({ sub: 'u1' }, at(24 * 3600 + 1)), SECRET, NOW))).resolves.toMatch(/^IDENTITY_TOKEN_INVALID: .*within 24 hours/);
    await expect(refusal(verifyReporterToken(await sign({ sub: 'u1' }, at(-1)), SECRET, NOW))).resolves.toMatch(/^IDENTITY_TOKEN_INVALID: .*expired/);
    await expect(refusal(verifyReporterToken(await sign({ sub: 'u1' }, null), SECRET, NOW))).resolves.toMatch(/^IDENTITY_TOKEN_INVALID: .*"exp"/);
  });

  it.each([
    ['a number as sub', { sub: 42 }],
    ['a blank sub', { sub: '  ' }],
    ['an e-mail with a lone surrogate', { sub: 'u1', email: 'a\ud800@example.com' }],
    ['a name that is not text', { sub: 'u1', name: ['Ada'] }],
  ])('refuses %s', async (_label, claims) => {
    await expect(refusal(verifyReporterToken(await sign(claims), SECRET, NOW))).resolves.toMatch(/^IDENTITY_TOKEN_INVALID: /);
  });
});
