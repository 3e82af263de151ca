import { describe, expect, it } from '@jest/globals';
import { sanitizeQuestionHtml } from './html-policy.js';
import { generateShareToken, hashShareToken, SHARE_TOKEN_PATTERN, ShareTokenSealer } from './share-token.js';

describe('question HTML policy', () => {
  it('keeps formatting and safe links', () => {
    expect(sanitizeQuestionHtml('<p>Hi <strong>there</strong> <a href="https://example.com">x</a></p>')).toBe(
      '<p>Hi <strong>there</strong> <a href="https://example.com" rel="noopener noreferrer nofollow" target="_blank">x</a></p>',
    );
  });

  it('drops scripts, handlers, javascript: URLs and SVG', () => {
    const out = sanitizeQuestionHtml(
      '<script>alert(1)</script><img src=x onerror=alert(1)><a href="javascript:alert(1)">a</a><svg onload=alert(1)><script>alert(2)</script></svg><p onclick="x()">ok</p>',
    );
    expect(out).not.toMatch(/script|onerror|onload|onclick|javascript:|<svg|<img/i);
    expect(out).toContain('<p>ok</p>');
  });
});

describe('share token', () => {
  it('is 256 random bits, sealed and opened again, and not openable under another secret', () => {
    const token = generateShareToken();
    expect(token).toMatch(SHARE_TOKEN_PATTERN);
    expect(generateShareToken()).not.toBe(token);
    const sealer = new ShareTokenSealer('a-secret-of-enough-length-0123456789');
    const sealed = sealer.seal(token);
    expect(sealed).not.toContain(token);
    expect(sealer.open(sealed)).toBe(token);
    expect(new ShareTokenSealer('another-secret-of-enough-length-012345').open(sealed)).toBeUndefined();
    expect(hashShareToken(token)).toMatch(/^[0-9a-f]{64}$/);
  });
});
