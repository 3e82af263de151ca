import { describe, expect, it } from '@jest/globals';
import { fastestOf } from '#libs/testing';
import { forbiddenKeysIn, nestsDeeperThan } from './json-body.js';

const deeper = (text: string, max: number) => nestsDeeperThan(Buffer.from(text, 'utf8'), max);

describe('nestsDeeperThan', () => {
  it('counts objects and arrays together, up to and past the limit', () => {
    expect(deeper('{"a":[{"b":[]}]}', 4)).toBe(false);
    expect(deeper('{"a":[{"b":[]}]}', 3)).toBe(true);
    expect(deeper('[1,[2],[3,[4]]]', 3)).toBe(false);
    expect(deeper('[1,[2],[3,[4]]]', 2)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(deeper(JSON.stringify({ a: '[[[[{{{{', b: 'say \\"[[[[' }), 1)).toBe(false);
    expect(deeper('{"a":"\\\\"}', 1)).toBe(false); // an escaped backslash ends before the closing quote
    expect(deeper('{"a":"\\\\","b":[[]]}', 2)).toBe(true);
    expect(deeper(JSON.stringify({ '[[[': '😀[[[', ü: 'é' }), 1)).toBe(false);
  });

  it('answers early on very deep text', async () => {
    const text = '['.repeat(1_000_000);
    const { ms, result } = await fastestOf(() => deeper(text, 32), 50);
    expect(result).toBe(true);
    expect(ms).toBeLessThan(50);
  });
});

describe('forbiddenKeysIn', () => {
  it('finds __proto__, constructor and prototype at any level, with their paths', () => {
    expect(forbiddenKeysIn(JSON.parse('{"a":1,"__proto__":{"x":1}}'))).toEqual(['__proto__']);
    expect(forbiddenKeysIn(JSON.parse('{"a":{"constructor":{"prototype":{}}}}'))).toEqual(['a.constructor', 'a.constructor.prototype']);
    expect(forbiddenKeysIn(JSON.parse('{"list":[{"ok":1},{"\\u005f_proto__":1}]}'))).toEqual(['list.1.__proto__']);
    expect(forbiddenKeysIn({ text: '__proto__', constructorName: 'x', protos: [1, 2] })).toEqual([]);
  });
});
