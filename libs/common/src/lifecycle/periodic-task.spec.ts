import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { PeriodicTask } from './periodic-task.js';

describe('PeriodicTask', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  function task(run: () => Promise<unknown>) {
    const warnings: string[] = [];
    return { warnings, task: new PeriodicTask('Sweep', 1000, run, { warn: (_details: unknown, message: string) => warnings.push(message) } as never) };
  }

  it('runs once per interval, once however often it is started, and not after stop', async () => {
    let runs = 0;
    const { task: sweep } = task(async () => runs++);
    sweep.start();
    sweep.start();
    await jest.advanceTimersByTimeAsync(3000);
    expect(runs).toBe(3);
    sweep.stop();
    await jest.advanceTimersByTimeAsync(3000);
    expect(runs).toBe(3);
  });

  it('logs a failed run as one warning and keeps going', async () => {
    let runs = 0;
    const { task: sweep, warnings } = task(async () => {
      runs++;
      if (runs === 1) throw new Error('database away');
    });
    sweep.start();
    await jest.advanceTimersByTimeAsync(2000);
    expect(runs).toBe(2);
    expect(warnings).toEqual(['Sweep failed']);
    sweep.stop();
  });

  it('never keeps the process alive', () => {
    const { task: sweep } = task(async () => undefined);
    const setInterval = jest.spyOn(global, 'setInterval');
    sweep.start();
    const timer = setInterval.mock.results[0].value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    sweep.stop();
  });
});
