import { describe, expect, it } from '@jest/globals';
import { SLUG_PATTERN } from './dto/site.dto.js';
import { slugFromName } from './sites.service.js';

describe('slugFromName', () => {
  it.each([
    ['Marketing Site', 'marketing-site'],
    ['  Café Müller / Shop ', 'cafe-muller-shop'],
    ['***', 'site'],
    ['日本語', 'site'],
    ['CON', 'con-site'],
    ['lpt1', 'lpt1-site'],
    ['a'.repeat(200), 'a'.repeat(56)],
    ['x' + '-'.repeat(60) + 'y', 'x-y'],
  ])('%s -> %s', (name, slug) => {
    expect(slugFromName(name)).toBe(slug);
    expect(SLUG_PATTERN.test(slug)).toBe(true);
  });
});
