import { describe, expect, it } from '@jest/globals';
import { DEFAULT_RETRY_SCHEDULE_MS, retryDelayMs } from './webhook-retry-schedule.js';

describe('webhook retry schedule', () => {
  it('retries for about three days in all', () => {
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeGreaterThan(3 * 24 * 3600_000);
    expect(total).toBeLessThan(3.5 * 24 * 3600_000);
  });

  it('grows between attempts and jitters each delay by at most 20 %', () => {
    for (let index = 1; index < DEFAULT_RETRY_SCHEDULE_MS.length; index++) expect(DEFAULT_RETRY_SCHEDULE_MS[index]).toBeGreaterThan(DEFAULT_RETRY_SCHEDULE_MS[index - 1]);
    expect(retryDelayMs([1000], 1, () => 0)).toBe(800);
    expect(retryDelayMs([1000], 1, () => 0.5)).toBe(1000);
    expect(retryDelayMs([1000], 1, () => 1)).toBe(1200);
  });

  it('has no retry after the last delay', () => {
    expect(retryDelayMs([1000, 2000], 2, () => 0.5)).toBe(2000);
    expect(retryDelayMs([1000, 2000], 3)).toBeUndefined();
  });
});
