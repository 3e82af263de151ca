import { describe, expect, it } from '@jest/globals';
import { OverloadMonitor, overloadReason, type EventLoopDelaySource, type OverloadLimits } from './overload-gate.service.js';

const LIMITS: OverloadLimits = { maxEventLoopDelayMs: 100, maxInFlight: 50, minInFlight: 8 };

/** A stand-in for perf_hooks' histogram: the test says what the event loop's delay was in each window. */
class ScriptedDelays implements EventLoopDelaySource {
  private samples: number[] = [];
  resets = 0;
  record(...delaysMs: number[]): void {
    this.samples.push(...delaysMs);
  }
  meanMs(): number {
    return this.samples.length === 0 ? 0 : this.samples.reduce((sum, value) => sum + value, 0) / this.samples.length;
  }
  reset(): void {
    this.samples = [];
    this.resets++;
  }
  stop(): void {}
}

describe('overloadReason', () => {
  it('admits while both signals are under their limits', () => {
    expect(overloadReason(0, 0, LIMITS)).toBeUndefined();
    expect(overloadReason(49, 99, LIMITS)).toBeUndefined();
  });

  it('refuses once the requests in flight reach the limit, whatever the delay', () => {
    expect(overloadReason(50, 0, LIMITS)).toBe('in_flight');
    expect(overloadReason(500, 1000, LIMITS)).toBe('in_flight');
  });

  it('refuses on event-loop delay only with a queue behind it (at least minInFlight in flight)', () => {
    expect(overloadReason(7, 5000, LIMITS)).toBeUndefined();
    expect(overloadReason(8, 100, LIMITS)).toBe('event_loop_delay');
    expect(overloadReason(8, 99, LIMITS)).toBeUndefined();
  });
});

describe('OverloadMonitor', () => {
  it('decides on the last completed window, and recovers in the first window after the load', () => {
    const delays = new ScriptedDelays();
    const monitor = new OverloadMonitor(LIMITS, delays);
    for (let i = 0; i < 10; i++) monitor.enter();

    // A window of a saturated loop: mean 150 ms.
    delays.record(120, 180, 150);
    expect(monitor.check()).toBeUndefined(); // not judged before the window closes
    monitor.sample();
    expect(monitor.eventLoopDelayMs).toBe(150);
    expect(monitor.check()).toBe('event_loop_delay');

    // The load is gone: the next window's samples alone count, not the old ones.
    delays.record(2, 3, 1);
    monitor.sample();
    expect(monitor.eventLoopDelayMs).toBe(2);
    expect(monitor.check()).toBeUndefined();
    expect(delays.resets).toBe(2);
  });

  it('a window without samples (nothing ran late) reads as no delay', () => {
    const delays = new ScriptedDelays();
    const monitor = new OverloadMonitor(LIMITS, delays);
    delays.record(400);
    monitor.sample();
    monitor.sample();
    expect(monitor.eventLoopDelayMs).toBe(0);
  });

  it('counts requests in and out of flight', () => {
    const monitor = new OverloadMonitor({ ...LIMITS, maxInFlight: 2 }, new ScriptedDelays());
    monitor.enter();
    expect(monitor.check()).toBeUndefined();
    monitor.enter();
    expect(monitor.check()).toBe('in_flight');
    monitor.leave();
    expect(monitor.inFlight).toBe(1);
    expect(monitor.check()).toBeUndefined();
  });
});
