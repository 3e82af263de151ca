import { describe, expect, it } from '@jest/globals';
import { htmlLimitViolations, MAX_BATCH_HTML_ELEMENTS, MAX_BATCH_HTML_LENGTH, MAX_HTML_NESTING, measureHtml, sanitizeQuestionHtml } from './html-policy.js';
import { generateShareToken, hashShareToken, SHARE_TOKEN_PATTERN, shareTokenSealer } from './share-token.js';

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

describe('HTML limits (measured before sanitising)', () => {
  const nested = (depth: number, tag = 'b') => `${`<${tag}>`.repeat(depth)}x${`</${tag}>`.repeat(depth)}`;

  it('measures nesting as the sanitiser parses it: closed, void, implied-closed and unclosed elements', () => {
    expect(measureHtml('plain text, a < b && c > d')).toEqual({ elements: 0, depth: 0 });
    expect(measureHtml(nested(3))).toEqual({ elements: 3, depth: 3 });
    expect(measureHtml('<p>a</p><p>b<br>c<hr></p>')).toEqual({ elements: 4, depth: 1 });
    // Unclosed paragraphs and list items close each other; unclosed inline tags nest.
    expect(measureHtml(`<ul>${'<li>item'.repeat(50)}</ul>${'<p>para'.repeat(50)}`).depth).toBe(2);
    expect(measureHtml('<b>'.repeat(30)).depth).toBe(MAX_HTML_NESTING + 1);
    // A close tag closes what is open inside it; one that matches nothing changes nothing.
    expect(measureHtml(`<blockquote>${'<i>'.repeat(10)}</blockquote>${nested(5)}</em>`).depth).toBe(11);
    // Attribute values, comments and declarations hide no tags, and a '>' inside quotes does not end a tag.
    expect(measureHtml(`<a title="</a><b><b>" href='x>y'>${'<i>'.repeat(4)}<!-- <b><b><b> --><!doctype html>`)).toEqual({ elements: 5, depth: 5 });
    expect(measureHtml('<B><b></B>').depth).toBe(2);
  });

  it('stays linear on pathological input (no pattern, no tree)', () => {
    const started = performance.now();
    // 250,000 characters each: a quadratic scan would take minutes.
    for (const html of ['<'.repeat(250_000), '<a'.repeat(125_000), '<a title="'.repeat(25_000), '<b>'.repeat(83_333), '</b>'.repeat(62_500), '<!--'.repeat(62_500), '<p a=\''.repeat(41_666)]) measureHtml(html);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('names each field nested too deep, and the batch when its HTML is too long or has too many elements', () => {
    expect(htmlLimitViolations([{ field: 'introHtml', html: nested(MAX_HTML_NESTING) }, { field: 'questions.0.html', html: nested(MAX_HTML_NESTING, 'li') }])).toEqual([]);
    expect(htmlLimitViolations([{ field: 'introHtml', html: '<p>hi</p>' }, { field: 'questions.0.html', html: nested(MAX_HTML_NESTING + 1, 'em') }])).toEqual([
      { field: 'questions.0.html', messages: [`questions.0.html nests elements deeper than ${MAX_HTML_NESTING} levels`] },
    ]);
    const long = Array.from({ length: 6 }, (_, i) => ({ field: `questions.${i}.html`, html: 'x'.repeat(MAX_BATCH_HTML_LENGTH / 5) }));
    expect(htmlLimitViolations(long).map((v) => v.messages[0])).toEqual([expect.stringContaining('120,000 characters; at most 100,000')]);
    const busy = Array.from({ length: 3 }, (_, i) => ({ field: `questions.${i}.html`, html: '<br>'.repeat(MAX_BATCH_HTML_ELEMENTS / 2) }));
    expect(htmlLimitViolations(busy).map((v) => v.messages[0])).toEqual([expect.stringContaining('7,500 elements; at most 5,000')]);
  });
});

describe('share token', () => {
  it('is 256 random bits, sealed and opened again, and not openable under another secret', () => {
    const token = generateShareToken();
    expect(token).toMatch(SHARE_TOKEN_PATTERN);
    expect(generateShareToken()).not.toBe(token);
    const sealer = shareTokenSealer('a-secret-of-enough-length-0123456789');
    const sealed = sealer.seal(token);
    expect(sealed).not.toContain(token);
    expect(sealer.open(sealed)).toBe(token);
    expect(shareTokenSealer('another-secret-of-enough-length-012345').open(sealed)).toBeUndefined();
    expect(hashShareToken(token)).toMatch(/^[0-9a-f]{64}$/);
  });
});
