import { describe, expect, it } from '@jest/globals';
import { canonicalEmail, canonicalEmailDigest } from './canonical-email.js';

describe('canonicalEmail', () => {
  it('trims, lower-cases and folds compatibility characters', () => {
    expect(canonicalEmail('  Alice@Example.COM ')).toBe('alice@example.com');
    expect(canonicalEmail('ａｌｉｃｅ@ｅｘａｍｐｌｅ.com')).toBe('alice@example.com');
    expect(canonicalEmail('ﬁona@example.com')).toBe('fiona@example.com');
    // Composed and decomposed spellings of one letter are one address.
    expect(canonicalEmail('Jos\u0065\u0301@example.com')).toBe(canonicalEmail('JOS\u00c9@example.com'));
  });

  it('keeps İ (U+0130) apart from i, the way it keeps every other letter: its lower case is i + U+0307', () => {
    expect(canonicalEmail('alİce@example.com')).toBe('ali\u0307ce@example.com');
    expect(canonicalEmail('alİce@example.com')).not.toBe(canonicalEmail('alice@example.com'));
    expect(canonicalEmail('ALİCE@EXAMPLE.COM')).toBe(canonicalEmail('alİce@example.com'));
  });

  it('is idempotent', () => {
    for (const email of ['İSTANBUL@x.tr', 'ǅemal@x', 'ﬀ@x', 'Straße@x', 'ΣΑΣ@x']) expect(canonicalEmail(canonicalEmail(email))).toBe(canonicalEmail(email));
  });

  it('digests the canonical form', () => {
    expect(canonicalEmailDigest(' ALICE@example.com')).toBe(canonicalEmailDigest('alice@example.com'));
    expect(canonicalEmailDigest('alice@example.com')).toMatch(/^[0-9a-f]{32}$/);
  });
});
