import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { FASTEST_OF_FIRST_PAUSE_MS, fastestOf, startClock, timed, withinOneWindow } from './timing.js';

describe('withinOneWindow', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  /** A case that fails after the wall clock moved `ms` forward during it. */
  const failingAfter = (ms: number, runs: { count: number }) => async () => {
    runs.count++;
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + ms);
    throw new Error(`failed after ${ms} ms`);
  };

  it('runs a failed case again on fresh state when the window closed during it', async () => {
    const runs = { count: 0 };
    let first = true;
    const result = await withinOneWindow(60_000, async () => {
      if (first) {
        first = false;
        return failingAfter(61_000, runs)();
      }
      runs.count++;
      return 'counted inside one window';
    });
    expect(result).toBe('counted inside one window');
    expect(runs.count).toBe(2);
  });

  it('fails at once when the case failed inside its window', async () => {
    const runs = { count: 0 };
    await expect(withinOneWindow(60_000, failingAfter(1_000, runs))).rejects.toThrow('failed after 1000 ms');
    expect(runs.count).toBe(1);
  });

  it('gives up after its tries even when every window closed', async () => {
    const runs = { count: 0 };
    await expect(withinOneWindow(60_000, failingAfter(61_000, runs), 2)).rejects.toThrow('failed after 61000 ms');
    expect(runs.count).toBe(2);
  });
});

describe('fastestOf', () => {
  it('stops at the first run under the limit, and keeps the fastest while over it', async () => {
    const durations = [250, 1, 1];
    let runs = 0;
    const { ms } = await fastestOf(() => sleep(durations[runs++]), 200, 3);
    expect(runs).toBe(2);
    expect(ms).toBeLessThan(200);
  });

  it('spaces its tries, so one stall of the machine does not fail them all', async () => {
    // Every try during the stall takes 30 ms; after it, none. Back to back, three tries fit inside the stall; spaced,
    // the third starts at least 30 + 100 + 30 + 200 ms in, after it. Only lower bounds on time: a busy machine
    // fires timers late, never early.
    const stallEnds = performance.now() + FASTEST_OF_FIRST_PAUSE_MS * 2.5;
    const { ms } = await fastestOf(() => (performance.now() < stallEnds ? sleep(30) : undefined), 20, 3);
    expect(ms).toBeLessThan(20);

    const tries: Array<{ started: number; ended: number }> = [];
    await fastestOf(async () => {
      const started = performance.now();
      await sleep(30);
      tries.push({ started, ended: performance.now() });
    }, 20, 3);
    const pauses = tries.slice(1).map((next, index) => Math.round(next.started - tries[index].ended));
    expect(pauses).toHaveLength(2);
    expect(pauses[0]).toBeGreaterThanOrEqual(FASTEST_OF_FIRST_PAUSE_MS - 1);
    expect(pauses[1]).toBeGreaterThanOrEqual(2 * FASTEST_OF_FIRST_PAUSE_MS - 1);
  });
});

describe('timed', () => {
  /** Busy work until this process has spent `ms` of CPU: by the CPU clock, since a busy machine may deschedule it. */
  const spin = (ms: number) => {
    const spent = startClock('cpu');
    while (spent() < ms);
  };

  it('counts elapsed time on the wall clock and work done on the CPU clock', async () => {
    expect((await timed(() => sleep(100))).ms).toBeGreaterThanOrEqual(95);
    // Waiting costs no CPU; spinning does. The CPU clock counts every thread of the process (a neighbouring test's
    // garbage collection too: CI once saw 106 ms during the sleep), so the wait is judged by its cheapest of three tries.
    expect((await fastestOf(() => sleep(100), 50, 3, 'cpu')).ms).toBeLessThan(50);
    expect((await timed(() => spin(100), 'cpu')).ms).toBeGreaterThanOrEqual(100);
  });

  it('keeps the cheapest CPU run when fastestOf runs on the CPU clock', async () => {
    const costs = [120, 5];
    let runs = 0;
    const { ms } = await fastestOf(() => spin(costs[runs++]), 60, 3, 'cpu');
    expect(runs).toBe(2);
    expect(ms).toBeLessThan(60);
  });
});
