import { describe, expect, it } from '@jest/globals';
import { generateRecoveryCodes, hashRecoveryCode, totpSecretSealer } from './second-factor-secrets.js';

describe('second-factor secrets', () => {
  it('seals a TOTP secret so that only the same service secret opens it, and never the same way twice', () => {
    const sealer = totpSecretSealer('a-secret-of-enough-length-0123456789');
    const first = sealer.seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    expect(first).not.toContain('JBSWY3DP');
    expect(sealer.seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP')).not.toBe(first);
    expect(sealer.open(first)).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    expect(totpSecretSealer('another-secret-of-enough-length-012345').open(first)).toBeUndefined();
    const [version, iv, body, tag] = first.split('.');
    expect(sealer.open([version, iv, body, Buffer.from('x'.repeat(16)).toString('base64url')].join('.'))).toBeUndefined();
    expect(sealer.open(`${version}.${iv}.${body}`)).toBeUndefined();
    expect(tag).toBeTruthy();
  });

  it('makes ten distinct recovery codes, hashed alike whatever the case, spaces and dashes typed', () => {
    const codes = generateRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
    const [code] = codes;
    expect(hashRecoveryCode(` ${code.toUpperCase().replace('-', ' - ')} `)).toBe(hashRecoveryCode(code));
    expect(hashRecoveryCode(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashRecoveryCode(codes[1])).not.toBe(hashRecoveryCode(code));
  });
});
