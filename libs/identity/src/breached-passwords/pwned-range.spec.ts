import { describe, expect, it } from '@jest/globals';
import { breachCountIn, rangeKeyOf } from './pwned-range.js';

describe('Pwned Passwords range helpers', () => {
  it('splits the upper-case SHA-1 into a five-character prefix and a 35-character suffix', () => {
    // SHA-1("password") = 5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8
    expect(rangeKeyOf('password')).toEqual({ prefix: '5BAA6', suffix: '1E4C9B93F3F0682250B6CF8331B7EE68FD8' });
  });

  it('finds the suffix in CRLF or LF lines, in any case, and ignores padding lines of count 0', () => {
    const body = '0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n1E4C9B93F3F0682250B6CF8331B7EE68FD8:9659365\r\n011053FD0102E94D6AE2F8B83D76FAF94F6:0';
    expect(breachCountIn(body, '1e4c9b93f3f0682250b6cf8331b7ee68fd8')).toBe(9659365);
    expect(breachCountIn(body.replaceAll('\r\n', '\n'), '0018A45C4D1DEF81644B54AB7F969B88D65')).toBe(1);
    expect(breachCountIn(body, '011053FD0102E94D6AE2F8B83D76FAF94F6')).toBe(0);
    expect(breachCountIn(body, 'FFFFF93F3F0682250B6CF8331B7EE68FD8A')).toBe(0);
    expect(breachCountIn('', 'ABC')).toBe(0);
  });
});
