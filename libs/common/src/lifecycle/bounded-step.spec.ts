import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { runBoundedStep } from './bounded-step.js';
import { closeReserveMs, closeStepDeadline } from './graceful-shutdown.service.js';

describe('runBoundedStep', () => {
  function warnings() {
    const lines: Array<{ fields: Record<string, unknown>; msg: string }> = [];
    return { lines, warn: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }) };
  }

  it('abandons a step that never finishes at its deadline, with one warning naming it, and destroys what it waited on', async () => {
    const log = warnings();
    let destroyed = 0;
    const started = Date.now();
    const outcome = await runBoundedStep(() => new Promise(() => undefined), { step: 'close the LISTEN connection', deadline: started + 100, onAbandon: () => destroyed++, warn: log.warn });
    expect(outcome).toBe('abandoned');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(destroyed).toBe(1);
    expect(log.lines).toEqual([{ fields: expect.objectContaining({ step: 'close the LISTEN connection' }), msg: expect.stringMatching(/abandoned/) }]);
  });

  it('lets a step that finishes in time (or fails) through without a warning', async () => {
    const log = warnings();
    let destroyed = 0;
    const deadline = Date.now() + 1000;
    expect(await runBoundedStep(() => sleep(10), { step: 'a', deadline, onAbandon: () => destroyed++, warn: log.warn })).toBe('done');
    expect(await runBoundedStep(() => Promise.reject(new Error('refused')), { step: 'b', deadline, onAbandon: () => destroyed++, warn: log.warn })).toBe('failed');
    expect(await runBoundedStep(() => {
      throw new Error('sync');
    }, { step: 'c', deadline, warn: log.warn })).toBe('failed');
    expect({ warnings: log.lines.length, destroyed }).toEqual({ warnings: 0, destroyed: 0 });
  });
});

describe('shutdown deadlines', () => {
  it('keeps a quarter of the grace period, at most 1 s, for the close steps', () => {
    expect([0, 400, 3000, 10_000, 600_000].map(closeReserveMs)).toEqual([0, 100, 750, 1000, 1000]);
  });

  it('gives a close step at most 2 s, never past the grace period, but at least 50 ms', () => {
    const now = 1_000_000;
    expect(closeStepDeadline(now + 10_000, now)).toBe(now + 2000);
    expect(closeStepDeadline(now + 700, now)).toBe(now + 700);
    expect(closeStepDeadline(now - 5000, now)).toBe(now + 50);
  });
});
