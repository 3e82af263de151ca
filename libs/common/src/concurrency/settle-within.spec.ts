import { describe, expect, it } from '@jest/globals';
import { settleWithin } from './settle-within.js';

describe('settleWithin', () => {
  it('answers done for work that resolves, failed for work that throws or rejects', async () => {
    expect(await settleWithin(() => 'answer', 10_000)).toBe('done');
    expect(await settleWithin(async () => undefined, 10_000)).toBe('done');
    expect(
      await settleWithin(() => {
        throw new Error('sync');
      }, 10_000),
    ).toBe('failed');
    expect(await settleWithin(() => Promise.reject(new Error('async')), 10_000)).toBe('failed');
  });

  it('answers timed-out for work still running at its limit', async () => {
    expect(await settleWithin(() => new Promise(() => undefined), 5)).toBe('timed-out');
  });
});
