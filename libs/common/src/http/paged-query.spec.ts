import { describe, expect, it } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { QueryInteger } from './paged-query.js';

class Unsigned {
  @QueryInteger()
  n?: unknown;
}
class Signed {
  @QueryInteger({ signed: true })
  n?: unknown;
}
class SixDigits {
  @QueryInteger({ digits: 6 })
  n?: unknown;
}

/** The rules the listings' own transforms had, written as patterns: the shared transform must keep each. */
const RULES: Array<[new () => { n?: unknown }, RegExp]> = [
  [Unsigned, /^[0-9]{1,10}$/],
  [Signed, /^-?[0-9]{1,10}$/],
  [SixDigits, /^[0-9]{1,6}$/],
];
const INPUTS = ['0', '7', '200', '-1', '--1', '-', '', '1.5', '1e3', ' 1', '1 ', '+1', '0x10', '123456', '1234567', '1234567890', '12345678901', '-1234567890', '-12345678901', 'abc'];

describe('QueryInteger', () => {
  it('turns exactly the plain decimal integers its options allow into numbers', () => {
    for (const [type, rule] of RULES) {
      for (const input of INPUTS) {
        const expected = rule.test(input) ? Number(input) : input;
        expect([type.name, input, plainToInstance(type, { n: input }).n]).toEqual([type.name, input, expected]);
      }
    }
  });

  it('leaves values that are not text alone', () => {
    expect(plainToInstance(Unsigned, { n: 5 }).n).toBe(5);
    expect(plainToInstance(Unsigned, { n: null }).n).toBeNull();
  });
});
